package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/billsnap/billsnap/catalog"
	"github.com/billsnap/billsnap/extract"
)

// floor GETs every page of every list at the given concurrency and throws
// the bodies away: the least time the network allows. Page 1 of each list
// says how many pages there are; the others are fetched by page number.
func floor(ctx context.Context, url string, concurrency int) (int64, error) {
	return fetchPages(ctx, url, concurrency, nil)
}

// keepPage is given each page fetchPages GETs: its list's table, its
// number and its body. It may be called from several goroutines at once.
type keepPage func(table string, page int, body []byte) error

// fetchPages GETs every page of every list as floor does, hands each body
// to keep (when not nil) and returns the lists' records (their
// TotalCount).
func fetchPages(ctx context.Context, url string, concurrency int, keep keepPage) (int64, error) {
	cfg := benchConfig(url, "", concurrency, 0)
	colls, _ := catalog.Collections(cfg.Collections)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * concurrency, MaxIdleConns: 4 * concurrency}}
	auth := extract.NewSecret(benchKey).Authorization()
	get := func(ctx context.Context, u string, front bool) ([]byte, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		req.Header.Set("Authorization", auth)
		if front {
			req.Header.Set("x-version", "nxt")
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
		}
		return io.ReadAll(resp.Body)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(concurrency)
	var records int64
	for _, c := range colls {
		first := extract.Collection(c).FirstPage(url, url)
		body, err := get(ctx, first, c.Front)
		if err != nil {
			return 0, err
		}
		var p struct{ Paging extract.Paging }
		if err := json.Unmarshal(body, &p); err != nil {
			return 0, err
		}
		if keep != nil {
			if err := keep(c.Table, 1, body); err != nil {
				return 0, err
			}
		}
		records += int64(p.Paging.TotalCount)
		for n := 2; n <= p.Paging.Pages; n++ {
			u := pageURL(first, n)
			g.Go(func() error {
				body, err := get(gctx, u, c.Front)
				if err == nil && keep != nil {
					err = keep(c.Table, n, body)
				}
				return err
			})
		}
	}
	return records, g.Wait()
}

var pageParam = regexp.MustCompile(`([?&]page=)\d+`)

// pageURL is page n of the list whose first page is first.
func pageURL(first string, n int) string {
	if pageParam.MatchString(first) {
		return pageParam.ReplaceAllString(first, "${1}"+strconv.Itoa(n))
	}
	sep := "?"
	if strings.Contains(first, "?") {
		sep = "&"
	}
	return first + sep + "page=" + strconv.Itoa(n)
}
