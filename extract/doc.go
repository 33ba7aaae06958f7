// Package extract is billsnap's side of the service: the HTTP client (auth,
// headers, retries with backoff, a concurrency gate that slows down on 429,
// typed API errors), and the page walker that
// follows Paging.NextPage and checks every page.
//
// The walker's contract: a collection's pages reach its Sink in NextPage
// order; at the end of a walk the Sink tallies the IDs it took (the
// walker keeps no set of them); a walk that drifted (TotalCount changed,
// an ID twice, a count short) is walked again a bounded number of times,
// and the last walk, which hands each record over once, is reported
// incomplete; a page that breaks the paging contract (a loop, a
// foreign host, Results that do not match, malformed JSON, an HTML page, a
// record without a GUID ID) stops the walk with a *PageError naming the
// collection, the page and the URL with secrets redacted. The API key is
// sent only to the configured base_url and front_url origins.
package extract
