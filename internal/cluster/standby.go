package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pgoltp/pgoltp/internal/adminconn"
	"github.com/pgoltp/pgoltp/internal/field"
	"github.com/pgoltp/pgoltp/internal/problem"
)

// Standbys of the managed primary (issue 31). Each is a streaming standby
// made by pg_basebackup from the primary, with its own physical replication
// slot, data directory (LAB/standbyN, marked like data/), port, log
// (log/standbyN.log) and the primary's socket directory; it runs as the same
// server user and listens on the socket and loopback only, as the primary.

// MaxStandbys bounds --standbys: the primary's default max_wal_senders (10)
// and max_replication_slots (10) leave room for them and for pg_basebackup.
const MaxStandbys = 8

// Sync levels of synchronous_standby_names on the primary.
const (
	SyncOff    = "off"    // asynchronous: '' (the default)
	SyncQuorum = "quorum" // ANY 1 (standby1, ...)
	SyncFirst  = "first"  // FIRST 1 (standby1, ...)
)

// Standby is one standby of the cluster, as cluster.json records it.
type Standby struct {
	Name string `json:"name"` // its application_name, slot name and directory
	Port int    `json:"port"`
}

// ValidateReplicas checks the replication options: a field error names the
// option by its field (Standbys, Sync).
func (o Options) ValidateReplicas() error {
	if o.Standbys < 0 || o.Standbys > MaxStandbys {
		return field.Bad("Standbys", fmt.Sprint(o.Standbys), "is out of range", fmt.Sprintf("0 to %d", MaxStandbys))
	}
	switch o.Sync {
	case "", SyncOff, SyncQuorum, SyncFirst:
	default:
		return field.Bad("Sync", o.Sync, "is not a synchronous replication mode", "quorum, first or off")
	}
	return nil
}

// standbyNames is synchronous_standby_names for the cluster's sync level.
func (c *Cluster) standbyNames() string {
	if c.Sync == "" || c.Sync == SyncOff || len(c.Standbys) == 0 {
		return ""
	}
	names := make([]string, len(c.Standbys))
	for i, s := range c.Standbys {
		names[i] = s.Name
	}
	return fmt.Sprintf("%s 1 (%s)", strings.ToUpper(map[string]string{SyncQuorum: "any", SyncFirst: "first"}[c.Sync]), strings.Join(names, ", "))
}

// replicationConf is the part of pgoltp.conf about replication: a standby's
// name (the walreceiver's application_name from PostgreSQL 12), the
// primary's synchronous standbys.
func (c *Cluster) replicationConf() string {
	if c.primary != nil {
		conf := fmt.Sprintf("cluster_name = %s\n", confQuote(c.name))
		if c.Major >= 12 { // before 12, in recovery.conf (writeStandbyConfig)
			conf += fmt.Sprintf("primary_conninfo = %s\nprimary_slot_name = %s\n", confQuote(c.primaryConninfo()), confQuote(c.name))
		}
		return conf
	}
	return fmt.Sprintf("synchronous_standby_names = %s\n", confQuote(c.standbyNames()))
}

// primaryConninfo is how standby c reaches the primary: written here, not by
// pg_basebackup -R, whose options a newer client's libpq may add (channel_binding,
// sslsni) and an older server's walreceiver refuses. It holds the password:
// it lives only in the standby's data directory (0700, the server user's).
func (c *Cluster) primaryConninfo() string {
	p := c.primary
	return fmt.Sprintf("host=%s port=%d user=%s password=%s application_name=%s",
		dsnQuote(p.SocketDir), p.Port, Superuser, dsnQuote(p.password), dsnQuote(c.name))
}

// writeStandbyConfig makes n start as a standby of the primary: its
// pgoltp.conf, and standby.signal (12 on) or recovery.conf (before 12),
// made when creating, else only rewritten (the primary's port may have
// moved) if still there: a promoted standby is not made one again.
func (n *Cluster) writeStandbyConfig(creating bool) error {
	if err := n.writeConfig(); err != nil {
		return err
	}
	name, content := "standby.signal", ""
	if n.Major < 12 {
		name = "recovery.conf"
		content = fmt.Sprintf("standby_mode = 'on'\nprimary_conninfo = %s\nprimary_slot_name = %s\nrecovery_target_timeline = 'latest'\n",
			confQuote(n.primaryConninfo()), confQuote(n.name))
	}
	path := filepath.Join(n.DataDir, name)
	if _, err := os.Lstat(path); !creating && errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return n.user.writeInData(path, content, os.O_CREATE|os.O_WRONLY|os.O_TRUNC)
}

// node is the standby s as a Cluster of its own: the primary's binaries,
// user, password and socket directory, its own data directory, port and log.
// Saving its state saves the primary's (see saveState).
func (c *Cluster) node(s Standby) *Cluster {
	n := *c
	n.Standbys, n.Sync, n.Pooler = nil, "", nil
	n.primary, n.name, n.Port = c, s.Name, s.Port
	n.DataDir = filepath.Join(c.Lab, s.Name)
	n.LogFile = filepath.Join(c.Lab, "log", s.Name+".log")
	return &n
}

// Nodes are the cluster's standbys as Clusters (see node), in order.
func (c *Cluster) Nodes() []*Cluster {
	nodes := make([]*Cluster, len(c.Standbys))
	for i, s := range c.Standbys {
		nodes[i] = c.node(s)
	}
	return nodes
}

// Name is a standby's name, "primary" for the primary.
func (c *Cluster) Name() string {
	if c.primary != nil {
		return c.name
	}
	return "primary"
}

// ensureReplicas brings the running primary to opts' standbys and sync
// level: it adds the standbys missing, never removes one.
func (c *Cluster) ensureReplicas(ctx context.Context, opts Options) error {
	if err := opts.ValidateReplicas(); err != nil {
		return err
	}
	if opts.Standbys != 0 && opts.Standbys < len(c.Standbys) {
		return problem.BadInput("ask for "+fmt.Sprint(len(c.Standbys))+" standbys or more, or 'pgoltp cluster destroy' first",
			"the lab's cluster has %d standbys, more than the %d asked for", len(c.Standbys), opts.Standbys)
	}
	if opts.Sync != "" && opts.Sync != SyncOff && opts.Standbys == 0 && len(c.Standbys) == 0 {
		return field.New("Sync", opts.Sync, "{} %s needs standbys, and the lab's cluster has none", opts.Sync).Fix("add {Standbys} 1 or more")
	}
	if opts.Standbys > len(c.Standbys) {
		if _, err := c.baseBackupProgram(); err != nil {
			return err
		}
	}
	for i := len(c.Standbys); i < opts.Standbys; i++ {
		if err := c.addStandby(ctx, fmt.Sprintf("standby%d", i+1)); err != nil {
			return err
		}
	}
	if (opts.Sync != "" && opts.Sync != c.Sync) || opts.Standbys > 0 {
		if opts.Sync != "" {
			c.Sync = opts.Sync
		}
		if err := c.writeConfig(); err != nil {
			return err
		}
		if err := c.saveState(); err != nil {
			return err
		}
		if err := c.reload(ctx); err != nil {
			return err
		}
	}
	for _, n := range c.Nodes() {
		if err := n.writeStandbyConfig(false); err != nil {
			return err
		}
		if err := n.Start(ctx); err != nil {
			return err
		}
	}
	return c.waitStreaming(ctx)
}

// waitStreaming waits until every standby streams from the primary (and,
// with synchronous replication, counts as a synchronous candidate: the
// primary's reload has taken effect): a write would otherwise wait forever,
// or a run start before its commits wait for a standby.
func (c *Cluster) waitStreaming(ctx context.Context) error {
	if len(c.Standbys) == 0 {
		return nil
	}
	conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, n := range c.Nodes() {
		streaming := false
		for deadline := time.Now().Add(time.Minute); !streaming && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_replication
				WHERE application_name = $1 AND state = 'streaming' AND (NOT $2 OR sync_state <> 'async'))`, n.name, c.standbyNames() != "").Scan(&streaming); err != nil {
				return err
			}
		}
		if !streaming {
			return fmt.Errorf("standby %s does not stream from the primary (as a synchronous candidate: %s) after a minute; its log %s: %s",
				n.name, dash(c.standbyNames()), n.LogFile, lastLines(readTail(n.LogFile), 2))
		}
	}
	return nil
}

// reload makes the server read its configuration again.
func (c *Cluster) reload(ctx context.Context) error {
	cmd := c.user.command(ctx, c.Lab, filepath.Join(c.BinDir, "pg_ctl"), "reload", "-D", c.DataDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("reloading PostgreSQL failed: %v: %s", err, lastLines(string(out), 2))
	}
	return nil
}

// addStandby makes the standby name from the running primary: its slot, its
// data directory (under the same rules as data/: a directory pgoltp did not
// make is refused, an interrupted create of its own started over), a base
// backup written as the server user, its configuration, then the record in
// cluster.json.
func (c *Cluster) addStandby(ctx context.Context, name string) (err error) {
	port, err := freePort()
	if err != nil {
		return err
	}
	n := c.node(Standby{Name: name, Port: port})
	if err := n.claimStandbyDir(); err != nil {
		return err
	}
	made := &createdFiles{dataDir: n.DataDir}
	defer func() {
		if err != nil {
			made.remove()
		}
	}()
	if err := made.mkdir(n.DataDir, c.user); err != nil {
		return err
	}
	if err := recordCreatingAt(standbyCreatingPath(c.Lab, name), n.DataDir, made); err != nil {
		return err
	}
	if err := c.createSlot(ctx, name); err != nil {
		return err
	}
	defer func() {
		if err != nil { // a slot no standby uses would hold the primary's WAL forever
			_ = c.dropSlots(context.WithoutCancel(ctx), []string{name})
		}
	}()
	if err := c.baseBackup(ctx, n); err != nil {
		return err
	}
	_ = os.Remove(markerPath(n.DataDir)) // the primary's, copied by pg_basebackup
	if err := writeNew(markerPath(n.DataDir), "created by pgoltp for the lab "+c.Lab+"\n"); err != nil {
		return err
	}
	if err := n.writeStandbyConfig(true); err != nil {
		return err
	}
	c.Standbys = append(c.Standbys, Standby{Name: name, Port: port})
	if err := c.saveState(); err != nil {
		c.Standbys = c.Standbys[:len(c.Standbys)-1]
		return err
	}
	if err := c.writePassFile(); err != nil {
		return err
	}
	_ = os.Remove(standbyCreatingPath(c.Lab, name))
	return nil
}

func standbyCreatingPath(lab, name string) string {
	return filepath.Join(lab, creatingName+"-"+name)
}

// claimStandbyDir refuses a standby directory pgoltp did not make, and
// removes one an interrupted create of its own left (named by its creating
// record, or marked but not in cluster.json).
func (n *Cluster) claimStandbyDir() error {
	if err := checkLabDir(n.DataDir); err != nil {
		return err
	}
	exists, empty, err := isEmptyDir(n.DataDir)
	if err != nil {
		return problem.Wrap(err, "choose another --lab", "cannot read %s", n.DataDir)
	}
	recPath := standbyCreatingPath(n.Lab, n.name)
	if exists && !empty {
		rec, recorded := readCreatingAt(recPath)
		_, markErr := os.Lstat(markerPath(n.DataDir))
		ours := recorded && rec.names(n.DataDir, n.user)
		if !ours && markErr != nil {
			return problem.BadInput("move it away, or choose another --lab",
				"refusing to use %s: it is not empty and pgoltp did not create it", n.DataDir)
		}
		if err := waitUnused(n.DataDir); err != nil {
			return err
		}
		if ours {
			err = rec.startOver(n.DataDir)
		} else {
			err = os.RemoveAll(n.DataDir)
		}
		if err != nil {
			return err
		}
	}
	if err := os.Remove(recPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// createSlot makes the standby's physical replication slot on the primary
// unless it exists (left by an interrupted create).
func (c *Cluster) createSlot(ctx context.Context, name string) error {
	conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return fmt.Errorf("connecting to the primary: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `SELECT pg_create_physical_replication_slot($1)
		WHERE NOT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = $1)`, name)
	return err
}

// dropSlots drops the named replication slots of the primary, if they exist.
func (c *Cluster) dropSlots(ctx context.Context, names []string) error {
	conn, err := adminconn.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ANY($1)`, names)
	return err
}

// baseBackup copies the primary into n's data directory as the server user,
// streaming the WAL it needs through n's slot (the standby's configuration
// is pgoltp's, see writeStandbyConfig).
func (c *Cluster) baseBackup(ctx context.Context, n *Cluster) error {
	program, err := c.baseBackupProgram()
	if err != nil {
		return err
	}
	conninfo := fmt.Sprintf("host=%s port=%d user=%s application_name=%s",
		dsnQuote(c.SocketDir), c.Port, Superuser, n.name)
	cmd := c.user.command(ctx, c.Lab, program,
		"-D", n.DataDir, "-d", conninfo, "-X", "stream", "-S", n.name, "-c", "fast")
	cmd.Env = append(cmd.Env, "PGPASSWORD="+c.password) // not on the command line, where ps shows it
	dieWithParent(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pg_basebackup for %s failed: %v: %s", n.name, err, lastLines(string(out), 3))
	}
	return nil
}

// destroyStandbys stops every standby and removes what pgoltp made for it:
// its data directory (only with the marker) and log.
func (c *Cluster) destroyStandbys(ctx context.Context) error {
	for _, n := range c.Nodes() {
		if exists, empty, _ := isEmptyDir(n.DataDir); exists && !empty {
			if _, err := os.Lstat(markerPath(n.DataDir)); err != nil {
				return problem.BadInput("remove it yourself if it is no longer needed",
					"refusing to remove %s: it has no pgoltp marker (%s)", n.DataDir, ownedMarker)
			}
		}
		if err := n.Stop(ctx); err != nil {
			if kerr := n.Kill(); kerr != nil {
				return err
			}
		}
		if err := os.RemoveAll(n.DataDir); err != nil {
			return err
		}
		for _, p := range []string{n.LogFile, standbyCreatingPath(c.Lab, n.name)} {
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// StopAll stops the pooler, then the primary (its WAL senders hand the
// standbys the shutdown checkpoint), then every standby.
func (c *Cluster) StopAll(ctx context.Context) error {
	if err := c.stopPooler(); err != nil {
		return err
	}
	if err := c.Stop(ctx); err != nil {
		return err
	}
	for _, n := range c.Nodes() {
		if err := n.Stop(ctx); err != nil {
			return err
		}
	}
	return nil
}

// baseBackupProgram finds a pg_basebackup that can copy the cluster: the
// cluster's own, else an installed one of its major or a newer one (which
// copies older servers, writing their recovery configuration). Downloaded
// builds carry only initdb, pg_ctl and postgres.
func (c *Cluster) baseBackupProgram() (string, error) {
	own := filepath.Join(c.BinDir, "pg_basebackup")
	if fi, err := os.Stat(own); err == nil && fi.Mode().IsRegular() {
		return own, nil
	}
	best, bestMajor := "", 0
	found, _ := filepath.Glob(filepath.Join(debianPostgresDir, "*", "bin", "pg_basebackup"))
	for _, p := range found {
		major, err := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
		if err == nil && major >= c.Major && (bestMajor == 0 || major < bestMajor) {
			best, bestMajor = p, major
		}
	}
	if best == "" {
		return "", problem.BadInput(fmt.Sprintf("install PostgreSQL's client programs of major %d or newer (apt-get install postgresql-client-%d), or use --pg-bin with a full installation", c.Major, c.Major),
			"standbys need pg_basebackup, and neither the cluster's binaries (%s) nor %s hold one of PostgreSQL %d or newer", c.BinDir, debianPostgresDir, c.Major)
	}
	return best, nil
}

// debianPostgresDir is where Debian installs each major's programs.
const debianPostgresDir = "/usr/lib/postgresql"
