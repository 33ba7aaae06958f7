package job

import (
	"context"
	"fmt"
	"slices"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/config"
	"github.com/billsnap/billsnap/extract"
	"github.com/billsnap/billsnap/usage"
)

// probeList is the list check-config reads: the smallest the service
// has (a few units of measure, one page).
const probeList = "units_of_measure"

// ProbeService sends one authenticated request to cfg's service with
// the key of svc: the first page of its smallest list (units of measure,
// at the path the configuration's collections give), once, without
// retrying. It returns the URL it asked and the service's answer as an
// error (an *extract.APIError for a refused key), or nil when the page
// came.
func ProbeService(ctx context.Context, cfg config.Config, svc Service) (string, error) {
	colls, err := catalog.Collections(cfg.Collections)
	if err != nil {
		return "", usage.Wrap(err)
	}
	i := slices.IndexFunc(colls, func(c catalog.Collection) bool { return c.Table == probeList })
	coll := extract.Collection(colls[i])
	retry := cfg.Retry
	retry.MaxAttempts = 1
	client, err := extract.NewClient(extract.Options{BaseURL: cfg.BaseURL, FrontURL: cfg.FrontURL, Secret: svc.Secret,
		Concurrency: 1, Timeout: cfg.Timeout, Retry: retry, Log: svc.Log, Clock: svc.Clock})
	if err != nil {
		return "", usage.Wrap(err)
	}
	url := coll.FirstPage(cfg.BaseURL, cfg.FrontURL)
	if _, err := client.GetPage(ctx, coll, url); err != nil {
		return extract.RedactURL(url), fmt.Errorf("GET %s: %w", extract.RedactURL(url), err)
	}
	return extract.RedactURL(url), nil
}
