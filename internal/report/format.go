package report

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/pgoltp/pgoltp/internal/problem"
)

// OutputFormat is --format if given, else the one -o's extension names, else
// json when jsonDefault (--json), else the first of formats; what names the
// output in the message about an unknown format.
func OutputFormat(what, format, out string, jsonDefault bool, formats ...string) (string, error) {
	format = strings.ToLower(format)
	if format == "" {
		ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
		switch {
		case ext == "htm" && slices.Contains(formats, "html"):
			format = "html"
		case ext != "" && slices.Contains(formats, ext):
			format = ext
		case jsonDefault:
			format = "json"
		default:
			format = formats[0]
		}
	}
	if !slices.Contains(formats, format) {
		last := len(formats) - 1
		return "", problem.BadInput("use --format "+strings.Join(formats[:last], ", ")+" or "+formats[last], "unknown %s format %q", what, format)
	}
	return format, nil
}
