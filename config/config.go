package config

import (
	"fmt"
	"github.com/billsnap/billsnap/access"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/findings"
	"github.com/billsnap/billsnap/flux"
	"github.com/billsnap/billsnap/lake"
	"github.com/billsnap/billsnap/notify"
	"github.com/billsnap/billsnap/schedule"
	"github.com/billsnap/billsnap/snapshot/storeconfig"
	"github.com/billsnap/billsnap/worklist"
)

// Config is everything a run needs, the API key aside. It composes the
// options the domain packages own, each with its validation: the store's
// (out, collections, fields, parquet, duckdb, lock_wait: inline at the top
// of the file), the retries of a request, reconcile's materiality, the
// schedules, the Iceberg catalog of object storage and the notifications.
type Config struct {
	storeconfig.Options `yaml:",inline"`
	BaseURL             string              `yaml:"base_url"`            // {base_url}: the /v3 endpoints
	FrontURL            string              `yaml:"front_url"`           // {front_url}: the paged lists
	Concurrency         int                 `yaml:"concurrency"`         // requests in flight, all collections together
	Prefetch            int                 `yaml:"prefetch"`            // pages fetched ahead of the NextPage chain, per collection
	Timeout             time.Duration       `yaml:"timeout"`             // one request, body included
	MaxRewalks          int                 `yaml:"max_rewalks"`         // re-walks of a collection that drifted
	Export              Export              `yaml:"export"`              // bounds of an export beyond what the service claims
	AllowInsecureHTTP   bool                `yaml:"allow_insecure_http"` // allow http:// to a host that is not loopback
	Progress            string              `yaml:"progress"`            // auto, bar, log or none
	Retry               extract.Retry       `yaml:"retry"`
	Reconcile           Reconcile           `yaml:"reconcile"`
	Reports             Reports             `yaml:"reports"`
	Schedules           []schedule.Schedule `yaml:"schedules"`
	Retention           Retention           `yaml:"retention"`
	Iceberg             lake.Iceberg        `yaml:"iceberg"`      // the catalog of the tables on parquet.url
	Notify              notify.Options      `yaml:"notify"`       // who is told of material findings and failures
	MetricsFile         string              `yaml:"metrics_file"` // node_exporter textfile, relative to out; "" for none
	Workspace           access.Config       `yaml:"workspace"`    // who the workspace's users are, and their roles
	Worklist            worklist.Config     `yaml:"worklist"`     // the findings' work: default due dates
	Flux                flux.Options        `yaml:"flux"`         // when a line of a period's flux review asks for an explanation
	// File is the YAML file Load read ("" for none): a program billsnap
	// runs (billsnap-lake) reads the same.
	File string `yaml:"-"`
}

// Export bounds an export by more than what the service claims
// (export.md): its time, and what a list may claim and take past its
// claims.
type Export struct {
	Deadline   time.Duration `yaml:"deadline"`    // the walks of an export, all lists together; 0: none
	MaxRecords int           `yaml:"max_records"` // records a list's first page may claim (TotalCount)
	Slack      int           `yaml:"slack"`       // pages and records a walk may take past its first page's claims, in percent
}

// Limits are e's bounds as the walker takes them, the deadline counted
// from now.
func (e Export) Limits(now time.Time) extract.Limits {
	l := extract.Limits{MaxRecords: e.MaxRecords, SlackPercent: e.Slack, Deadline: e.Deadline}
	if e.Deadline > 0 {
		l.Until = now.Add(e.Deadline)
	}
	return l
}

// Retention keeps the newest complete snapshots, with what belongs to
// them, and the runs of the journal since the oldest kept.
type Retention struct {
	Keep int `yaml:"keep"` // complete snapshots to keep; 0 keeps all
	// Runs is how many of the journal's newest runs are kept whatever
	// their age; older ones that started before the oldest snapshot kept
	// are pruned (with Keep 0, none), their counts kept for runs_total.
	Runs int `yaml:"runs"`
	// History is how long history keeps a version after it ended: "all"
	// (the default, also "") keeps every version whatever Keep prunes; a
	// duration (720h, or days: 400d) prunes the steps of history older
	// than that, their versions and changes with them (HistoryFor).
	History string `yaml:"history"`
}

// HistoryFor is how long history keeps a version after it ended, and
// whether it prunes at all ("all" or "" keep every version).
func (r Retention) HistoryFor() (time.Duration, bool, error) {
	h := strings.TrimSpace(r.History)
	if h == "" || h == "all" {
		return 0, false, nil
	}
	if days, ok := strings.CutSuffix(h, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, false, fmt.Errorf("%q: want all, or a duration such as 400d or 720h", h)
		}
		return time.Duration(n) * 24 * time.Hour, true, nil
	}
	d, err := time.ParseDuration(h)
	if err != nil || d <= 0 {
		return 0, false, fmt.Errorf("%q: want all, or a duration such as 400d or 720h", h)
	}
	return d, true, nil
}

// Reports says which report files are written, and where.
type Reports struct {
	Dir     string   `yaml:"dir"`      // under Out; a reconciliation's reports go to <dir>/<snapshot id>/
	Formats []string `yaml:"formats"`  // any of md, html, xlsx, csv, json
	MaxRows int      `yaml:"max_rows"` // findings shown per rule in HTML; the CSV has all
	Trend   int      `yaml:"trend"`    // reconciliations in the trend chart
}

// reportFormats are the report file formats.
var reportFormats = []string{"md", "html", "xlsx", "csv", "json"}

// Reconcile configures the rules run over a snapshot.
type Reconcile struct {
	Grace       time.Duration        `yaml:"grace"`     // how late a billing run may be before rule 7 fires
	Waivers     string               `yaml:"waivers"`   // YAML file of known exceptions
	RulesDir    string               `yaml:"rules_dir"` // directory of .sql rules added to (or replacing) the shipped ones
	Materiality findings.Materiality `yaml:"materiality"`
}

// Default is the configuration before file, environment and flags.
func Default() Config {
	return Config{
		Options:     storeconfig.DefaultOptions(),
		Concurrency: 8,
		Prefetch:    8,
		Timeout:     60 * time.Second,
		MaxRewalks:  2,
		Export:      Export{Deadline: 6 * time.Hour, MaxRecords: 100_000_000, Slack: 100},
		Progress:    "auto",
		Retry:       extract.Retry{MaxAttempts: 6, InitialDelay: 250 * time.Millisecond, MaxDelay: 10 * time.Second, MaxRetryAfter: 2 * time.Minute},
		MetricsFile: "billsnap.prom",
		Reports:     Reports{Dir: "reports", Formats: slices.Clone(reportFormats), MaxRows: 500, Trend: 12},
		Reconcile:   Reconcile{Grace: 48 * time.Hour, Materiality: findings.DefaultMateriality()},
		Iceberg:     lake.DefaultIceberg(),
		Retention:   Retention{Runs: 100, History: "all"},
		Workspace:   access.Config{SessionTTL: 12 * time.Hour},
		Worklist:    worklist.Default(),
		Flux:        flux.DefaultOptions(),
	}
}
