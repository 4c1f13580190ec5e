package pgbuild

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/cluster"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// contrib are the extensions every build installs: what the lab's
// collectors and a warm-up use.
var contrib = []string{"pg_stat_statements", "pgstattuple", "pg_prewarm"}

// Build makes the build o names, or returns the one already made with the
// same options (reused true). A name taken with other options is refused.
// progress gets one line per stage.
func Build(ctx context.Context, o Options, progress io.Writer) (b cluster.Build, reused bool, err error) {
	say := func(format string, args ...any) {
		if progress != nil {
			fmt.Fprintf(progress, format+"\n", args...)
		}
	}
	if err := cluster.CheckCache(o.Cache); err != nil {
		return b, false, err
	}
	if b, err := cluster.ReadBuild(o.Cache, o.Name); err == nil {
		return b, true, o.reuse(b)
	} else if _, statErr := os.Lstat(cluster.BuildDir(o.Cache, o.Name)); statErr == nil {
		return b, false, problem.Wrap(err, "remove "+cluster.BuildDir(o.Cache, o.Name)+" and build again", "%s is not a build pgoltp completed", cluster.BuildDir(o.Cache, o.Name))
	}
	who, err := buildUser()
	if err != nil {
		return b, false, err
	}
	if err := ensurePackages(ctx, o.CC, say); err != nil {
		return b, false, err
	}
	version, err := debianVersion(ctx)
	if err != nil {
		return b, false, err
	}
	src, err := source(ctx, o.Cache, version, say)
	if err != nil {
		return b, false, err
	}
	b = cluster.Build{Name: o.Name, CC: o.CC, CFLAGS: o.CFLAGS, Configure: o.Configure, Source: sourcePackage + " " + version}
	if b.CCVersion, err = compilerVersion(ctx, o.CC); err != nil {
		return b, false, err
	}
	return b, false, o.make(ctx, &b, src, who, say)
}

// reuse accepts an existing build made with the same options, unchanged.
func (o *Options) reuse(b cluster.Build) error {
	dir := cluster.BuildDir(o.Cache, o.Name)
	if !o.sameAs(b) {
		return problem.BadInput(fmt.Sprintf("pick another --name, or remove %s to build it again", dir),
			"the build %q exists with other options (--cc %s --cflags %q --configure %q)", o.Name, b.CC, b.CFLAGS, strings.Join(b.Configure, " "))
	}
	if err := cluster.VerifyBuild(dir); err != nil {
		return problem.Wrap(err, fmt.Sprintf("remove %s and build it again", dir), "the build %q changed after pgoltp built it", o.Name)
	}
	return nil
}

// compilerVersion is the first line of cc --version.
func compilerVersion(ctx context.Context, cc string) (string, error) {
	out, err := exec.CommandContext(ctx, cc, "--version").Output()
	if err != nil {
		return "", problem.BadInput("apt-get install "+cc, "the compiler %s does not run: %v", cc, err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(first), nil
}

// make configures, compiles and installs into a directory of its own under
// builds/, seals it (record and manifest) and renames it into place; on any
// failure that directory goes and the log stays.
func (o *Options) make(ctx context.Context, b *cluster.Build, src string, who builder, say func(string, ...any)) (err error) {
	builds := cluster.BuildsDir(o.Cache)
	if err := os.MkdirAll(builds, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(builds, o.Name+".log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	for _, left := range cluster.SweepPartials(builds) {
		say("== removed %s, left by an interrupted build", left)
	}
	work, err := os.MkdirTemp(builds, cluster.PartialPattern("build-"+o.Name))
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	for _, d := range []string{work, filepath.Join(work, "obj"), filepath.Join(work, "install")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.Lchown(d, who.uid, who.gid); err != nil {
			return err
		}
	}
	prefix := cluster.BuildDir(o.Cache, o.Name)
	r := run{ctx: ctx, dir: filepath.Join(work, "obj"), log: log, who: who}
	if err := r.stages(o, src, prefix, filepath.Join(work, "install"), say); err != nil {
		return problem.BadInput(fmt.Sprintf("see the log %s", logPath), "build %q: %v", o.Name, err)
	}
	installed := filepath.Join(work, "install", prefix)
	if err := ownTree(installed); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, filepath.Join(installed, "bin", "postgres"), "--version").Output()
	if err != nil {
		return problem.BadInput(fmt.Sprintf("see the log %s", logPath), "build %q: the built postgres does not run: %v", o.Name, err)
	}
	b.Version = strings.TrimSpace(string(out)[strings.LastIndex(strings.TrimSpace(string(out)), " ")+1:])
	b.BuiltAt = time.Now().UTC().Truncate(time.Second)
	if err := cluster.SealBuild(installed, *b); err != nil {
		return err
	}
	if err := os.Rename(installed, prefix); err != nil {
		return fmt.Errorf("putting the build in place: %w", err)
	}
	say("== build %s: PostgreSQL %s in %s (log %s)", o.Name, b.Version, prefix, logPath)
	return nil
}

// run runs a build's commands as the builder, in dir, into the log.
type run struct {
	ctx context.Context
	dir string
	log *os.File
	who builder
}

// command is args run as the builder, in dir, with the build's environment.
func (r run) command(args ...string) *exec.Cmd {
	cmd := exec.CommandContext(r.ctx, args[0], args[1:]...)
	cmd.Dir = r.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C", "HOME=" + filepath.Dir(r.dir)}
	cmd.SysProcAttr = r.who.attr
	return cmd
}

// cmd runs a stage's command into the log.
func (r run) cmd(stage string, args ...string) error {
	fmt.Fprintf(r.log, "\n== %s: %s\n", stage, strings.Join(args, " "))
	cmd := r.command(args...)
	cmd.Stdout, cmd.Stderr = r.log, r.log
	if err := cmd.Run(); err != nil {
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		return fmt.Errorf("%s failed (%v)", strings.Fields(stage)[0], err)
	}
	return nil
}

// unrecognized fails a configure that ignored options it does not know
// (it only warns): a build recorded with a flag that did nothing would be
// measured under a false name.
func (r run) unrecognized() error {
	b, err := os.ReadFile(r.log.Name())
	if err != nil {
		return err
	}
	const warning = "configure: WARNING: unrecognized options: "
	if i := strings.Index(string(b), warning); i >= 0 {
		opts, _, _ := strings.Cut(string(b[i+len(warning):]), "\n")
		return fmt.Errorf("configure failed: it does not know %s", opts)
	}
	return nil
}

// stages configures out of the source tree (a VPATH build in r.dir),
// compiles, and installs the server and contrib into destdir.
func (r run) stages(o *Options, src, prefix, destdir string, say func(string, ...any)) error {
	configure := append([]string{filepath.Join(src, "configure"), "--prefix=" + prefix, "CC=" + o.CC}, o.Configure...)
	if o.CFLAGS != "" {
		configure = append(configure, "CFLAGS="+o.CFLAGS)
	}
	flags := "CFLAGS " + o.CFLAGS
	if o.CFLAGS == "" {
		flags = "configure's CFLAGS"
	}
	if err := r.knownOptions(configure[0], o.Configure); err != nil {
		return err
	}
	say("== configure (%s, %s)", o.CC, flags)
	if err := r.cmd("configure", configure...); err != nil {
		return err
	}
	if err := r.unrecognized(); err != nil {
		return err
	}
	jobs := fmt.Sprintf("-j%d", runtime.NumCPU())
	say("== make %s (minutes; the log is %s)", jobs, r.log.Name())
	if err := r.cmd("compile", "make", jobs); err != nil {
		return err
	}
	for _, c := range contrib {
		if err := r.cmd("compile contrib/"+c, "make", jobs, "-C", "contrib/"+c); err != nil {
			return err
		}
	}
	say("== make install")
	if err := r.cmd("install", "make", "install", "DESTDIR="+destdir); err != nil {
		return err
	}
	for _, c := range contrib {
		if err := r.cmd("install contrib/"+c, "make", "-C", "contrib/"+c, "install", "DESTDIR="+destdir); err != nil {
			return err
		}
	}
	return nil
}

// ownTree hands the installation to pgoltp's user (root, when the builder
// was postgres) and takes write access from group and others: the cache
// holds only what its user can write.
func ownTree(root string) error {
	uid, gid := os.Geteuid(), os.Getegid()
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, uid, gid); err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return os.Chmod(path, fi.Mode().Perm()&^0o022)
		}
		return nil
	})
}
