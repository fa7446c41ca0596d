// Package resume checks the answers a framework hands back to a suspended
// tool when it resumes it, for the framework bridges of the nested modules
// (einobridge, genkitbridge), which keep the requests a tool asked and the
// answers it had in the framework's own store.
package resume

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolnexus-go/toolnexus"
)

// Answers checks given, the new answers to asked, the requests the tool
// named tool waits on, at now, and returns the answers to run it with:
// earlier, those it had before, and given, each replacing an earlier
// answer to the same request. No answer at all, or one that names no
// request of asked, reports [toolnexus.ErrAnswerMismatch]; an answer to a
// request that has expired, what [toolnexus.Answer.Check] reports.
func Answers(tool string, asked []toolnexus.Request, earlier, given toolnexus.Answers, now time.Time) (toolnexus.Answers, error) {
	if len(given) == 0 {
		return nil, fmt.Errorf("%w: tool %s was resumed without an answer", toolnexus.ErrAnswerMismatch, strconv.Quote(tool))
	}
	answers := slices.Clone(earlier)
	for _, a := range given {
		i := slices.IndexFunc(asked, func(r toolnexus.Request) bool { return a.ID != "" && r.ID == a.ID })
		if i < 0 {
			return nil, fmt.Errorf("%w: tool %s waits on %s, not on %s", toolnexus.ErrAnswerMismatch, strconv.Quote(tool), ids(asked), strconv.Quote(a.ID))
		}
		if err := a.Check(asked[i], now); err != nil {
			return nil, err
		}
		answers = slices.DeleteFunc(answers, func(b toolnexus.Answer) bool { return b.ID == a.ID })
		answers = append(answers, a)
	}
	return answers, nil
}

// ids lists the IDs of reqs, quoted, for an error message.
func ids(reqs []toolnexus.Request) string {
	quoted := make([]string, len(reqs))
	for i, r := range reqs {
		quoted[i] = strconv.Quote(r.ID)
	}
	return "request " + strings.Join(quoted, ", ")
}
