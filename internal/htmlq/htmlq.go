// Package htmlq reads a parsed HTML tree as tests read a page: the
// elements of a tag, an attribute, the text under an element.
package htmlq

import (
	"strings"

	"golang.org/x/net/html"
)

// Elements are the elements named tag under n, n included, in document
// order.
func Elements(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	if n.Type == html.ElementNode && n.Data == tag {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, Elements(c, tag)...)
	}
	return out
}

// Attr is n's attribute key, "" when it has none.
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// HasClass tells whether n's class attribute names class.
func HasClass(n *html.Node, class string) bool {
	return strings.Contains(" "+Attr(n, "class")+" ", " "+class+" ")
}

// Text is the text under n, unescaped.
func Text(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(Text(c))
	}
	return b.String()
}
