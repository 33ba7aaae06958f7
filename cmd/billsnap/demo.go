package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/billsnap/billsnap/sandbox"
)

// runDemo starts the sandbox in-process and walks one list through its
// NextPage links. Later issues make it run the whole job.
func runDemo(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "demo", "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	const key = "demo-key"
	srv, err := sandbox.Start("127.0.0.1:0", sandbox.New(sandbox.Config{APIKey: key, Data: sandbox.Options{Seed: 1, Customers: 250, Planted: 2}}))
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(env.stdout, "sandbox: base_url=%s front_url=%s\n", srv.BaseURL(), srv.FrontURL())
	next, pages, records, total := srv.FrontURL()+"/Customers/?page=1", 0, 0, 0
	for next != "" {
		var page struct {
			Items  []json.RawMessage
			Paging sandbox.Paging
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte(key)))
		req.Header.Set("x-version", "nxt")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("page %d: %w", pages+1, err)
		}
		pages, records, total, next = pages+1, records+len(page.Items), page.Paging.TotalCount, ""
		if page.Paging.NextPage != nil {
			next = *page.Paging.NextPage
		}
	}
	fmt.Fprintf(env.stdout, "Customers: %d pages, %d records, TotalCount %d\n", pages, records, total)
	return nil
}
