package report

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/store"
)

// Params flattens an options struct (a driver's RunOptions) into ordered
// parameters, so a report states every parameter that produced its numbers
// without the report knowing the workload. Field names come from json tags
// when present; nested structs become "outer.inner"; durations print as
// "10s"; fields tagged json:"-" and unexported fields are left out.
func Params(options any) []store.KV {
	var out []store.KV
	flatten(reflect.ValueOf(options), "", &out)
	return out
}

func flatten(v reflect.Value, prefix string, out *[]store.KV) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			if prefix != "" {
				*out = append(*out, store.KV{Name: prefix, Value: ""})
			}
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || v.Type() == reflect.TypeOf(time.Time{}) {
		*out = append(*out, store.KV{Name: prefix, Value: show(v)})
		return
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			tn, _, _ := strings.Cut(tag, ",")
			if tn == "-" {
				continue
			}
			if tn != "" {
				name = tn
			}
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			flatten(v.Field(i), prefix, out)
			continue
		}
		if prefix != "" {
			name = prefix + "." + name
		}
		if fv := v.Field(i); fv.Kind() == reflect.Func || fv.Kind() == reflect.Chan {
			continue
		}
		flatten(v.Field(i), name, out)
	}
}

func show(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return d.String()
	}
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s.String()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = show(v.Index(i))
		}
		return strings.Join(parts, ",")
	case reflect.Map:
		keys := v.MapKeys()
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%v=%v", k.Interface(), show(v.MapIndex(k))))
		}
		sort.Strings(parts)
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v.Interface())
}
