package toolnexus

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Values are shared between goroutines in use: a host builds many results
// from one part and one metadata map. Run under -race, this test fails on any
// write to shared state; without -race it still checks nothing was changed.
func TestSharedValuesDoNotRace(t *testing.T) {
	part, err := PartFromBytes([]byte("\x89PNG\r\n\x1a\n shared"), "image/png")
	require.NoError(t, err)
	req := Request{ID: "req-1", Kind: KindInput, Prompt: "Which?", Data: map[string]any{"choices": []any{"dev", "prod"}}}
	meta := map[string]any{"count": 2, "part": part, "parts": []ContentPart{part}, MetadataPending: req}
	wantPart := part
	wantMeta := maps.Clone(meta)

	const workers = 8
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				// Every ContentPart method.
				_ = part.Validate()
				_ = part.Size()
				_ = part.String()
				_ = part.GoString()
				_ = fmt.Sprintf("%v %+v %#v %q", part, part, part, part)
				_ = part.LogValue().Resolve()
				_, _ = part.SHA256()
				named := part.WithName(fmt.Sprint("n", g))
				_ = named

				// Results built from the shared part and metadata.
				r := ToolResult{Output: "shared", Parts: []ContentPart{part}, Metadata: meta}
				r2 := r.WithMetadata(fmt.Sprint("k", g), i)
				r3 := Ok("ok", part).WithMetadata("part", part).WithMetadata(MetadataPending, req)
				for _, x := range []ToolResult{r, r2, r3, Error("e", part), Pending(req), AuthRequired("https://example.com/login", "")} {
					_ = x.Validate()
					_ = x.IsPending()
					_, _ = PendingOf(x)
					_ = x.String()
					_ = x.GoString()
					_ = fmt.Sprintf("%v %+v %#v %q", x, x, x, x)
					_ = x.LogValue().Resolve()
					red := x.Redacted()
					_, _ = json.Marshal(red)
					b, err := json.Marshal(x)
					if err != nil {
						panic(err)
					}
					var back ToolResult
					if err := json.Unmarshal(b, &back); err != nil {
						panic(err)
					}
					slog.New(slog.NewJSONHandler(&bytes.Buffer{}, nil)).Info("r", "r", x)
				}

				// Request and Answer methods on the shared request.
				_ = req.Validate()
				_, _ = req.Expiry()
				_ = req.Expired(shareNow)
				_ = req.WithExpiry(shareNow)
				_ = req.LogValue().Resolve()
				_ = req.Resolve(nil).Check(req, shareNow)
				_ = req.Decline(ReasonDeclined)
			}
		}()
	}
	wg.Wait()

	assert.Equal(t, wantPart, part)
	assert.Equal(t, wantMeta, meta, "the shared metadata map was changed")
	assert.Equal(t, []ContentPart{wantPart}, meta["parts"])
}

var shareNow = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// newIDs returns n ids from newID as their 16 bytes, after checking each
// has the form "pnd-" + a version 4, RFC 4122 variant UUID.
func newIDs(n int) ([][16]byte, error) {
	ids := make([][16]byte, n)
	for i := range ids {
		s := newID()
		if len(s) != 40 || !strings.HasPrefix(s, "pnd-") || s[12] != '-' || s[17] != '-' || s[22] != '-' || s[27] != '-' {
			return nil, fmt.Errorf("malformed id %q", s)
		}
		h := s[4:12] + s[13:17] + s[18:22] + s[23:27] + s[28:]
		if _, err := hex.Decode(ids[i][:], []byte(h)); err != nil {
			return nil, fmt.Errorf("id %q: %w", s, err)
		}
		if ids[i][6]>>4 != 4 || ids[i][8]>>6 != 2 {
			return nil, fmt.Errorf("id %q is not a version 4 UUID", s)
		}
	}
	return ids, nil
}

// Request ids correlate answers with requests: a repeated id would let an
// answer to one request resolve another.
func TestIDsUniqueAcrossGoroutines(t *testing.T) {
	const workers, perWorker = 8, 125_000 // 1,000,000 ids
	all := make([][][16]byte, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			all[g], errs[g] = newIDs(perWorker)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	ids := slices.Concat(all...)
	require.Len(t, ids, 1_000_000)
	slices.SortFunc(ids, func(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) })
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			t.Fatalf("id %x generated twice", ids[i])
		}
	}
}

// idChildEnv, when set, makes TestIDsUniqueAcrossProcesses print the first id
// of its process and return.
const idChildEnv = "TOOLNEXUS_TEST_PRINT_FIRST_ID"

// Ids stay unique across processes: a host restarted, or several hosts
// sharing one store, never reuse one. The test binary runs itself a few
// times and compares the first id of each process.
func TestIDsUniqueAcrossProcesses(t *testing.T) {
	if os.Getenv(idChildEnv) == "1" {
		fmt.Println("first-id:", Pending(Request{Kind: KindInput, Prompt: "p"}).Metadata[MetadataPending].(Request).ID)
		return
	}
	const processes = 4
	seen := map[string]bool{}
	for range processes {
		cmd := exec.Command(os.Args[0], "-test.run=^TestIDsUniqueAcrossProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), idChildEnv+"=1")
		out, err := cmd.Output()
		require.NoError(t, err, "child output: %s", out)
		var id string
		for _, line := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(line, "first-id: "); ok {
				id = rest
			}
		}
		require.Regexp(t, `^pnd-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id, "child output: %s", out)
		require.False(t, seen[id], "id %s came from two processes", id)
		seen[id] = true
	}
	assert.Len(t, seen, processes)
}
