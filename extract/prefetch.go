package extract

import "context"

// future is a page being fetched ahead.
type future struct {
	url  string
	page *Page
	err  error
	done chan struct{}
}

// prefetched walks pages n, n+1, … by fetching up to Prefetch of them ahead
// with URLs from tmpl, up to the Pages the first page announced. A fetched
// page is used only if its URL is exactly the NextPage link the page before
// gave; at the first page where that is not so, or past the announced last
// page, it returns that link and page number for the caller to follow one
// by one.
func (st *walkState) prefetched(ctx context.Context, tmpl func(int) string, next string, n, last int) (string, int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ahead := map[int]*future{}
	launch := func(k int) {
		if k > last || ahead[k] != nil {
			return
		}
		f := &future{url: tmpl(k), done: make(chan struct{})}
		ahead[k] = f
		go func() {
			defer close(f.done)
			if st.w.Client.Allowed(f.url) {
				f.page, f.err = st.w.Client.GetPage(WithPriority(ctx, st.priority(k)), st.coll, f.url)
			}
		}()
	}
	for k := n; k < n+st.w.Prefetch; k++ {
		launch(k)
	}
	for next != "" {
		f := ahead[n]
		if f == nil || f.url != next {
			return next, n, nil
		}
		if err := st.follow(next, n); err != nil {
			return "", n, err
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return "", n, ctx.Err()
		}
		delete(ahead, n)
		if f.err != nil {
			return "", n, st.pageError(n, next, f.err)
		}
		f.page.URL = f.url
		if err := st.take(f.page, n); err != nil {
			return "", n, err
		}
		next, n = f.page.Paging.NextPage, n+1
		launch(n + st.w.Prefetch - 1)
	}
	return "", n, nil
}
