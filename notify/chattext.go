package notify

import (
	"strings"

	"github.com/billsnap/billsnap/internal/mdtext"
)

// slackText is s as Slack's mrkdwn text that reads as itself: &, < and >
// as the entities Slack asks for, so that no value the service or a
// person wrote makes a mention (<!channel>, <@U123>) that pings a channel,
// or a link (<https://…|label>) under a label of its choosing. Slack
// links a bare URL as itself, which shows where it goes.
func slackText(s string) string {
	return slackEscaper.Replace(s)
}

var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// teamsText is s as the Markdown of an Adaptive Card's TextBlock that
// reads as itself: each character that starts a construct the card draws
// (a link or image: [ ] !; emphasis: * _ ~; code `; a heading #; a quote
// or tag: < >; an escape \) behind a backslash, an underscore inside a
// word left as it is. An Adaptive Card mentions someone only through an
// <at> entity the sender declares, which billsnap never does.
func teamsText(s string) string { return mdtext.Escape(s, "\\`*_[]!<>#~", true) }
