package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/msg"
)

// CheckNames reports [ErrDuplicateKey] when an object of data, JSON text, has
// at any depth two members whose names, decoded as encoding/json decodes them,
// are equal, or equal under Unicode simple case folding as [strings.EqualFold]
// compares them. Of two such members a decoder that keeps the first, one that
// keeps the last and one that folds case read different values, while the
// canonical form of the text may be the same: no state may bind such
// arguments, and no tool may read them. It is the one check of every place
// that binds or decodes arguments (a request state's binding
// ([AppendBinding]), the MCP core's calls, the root's DecodeArguments and
// Turn). Text that is not JSON, or nests deeper than [MaxDepth], is left to
// the parser that reads it: CheckNames stops there and reports nothing more.
func CheckNames(data []byte) error {
	// Storage for the objects and names of arguments nested and wide as
	// most are, so that a check of them allocates nothing. The frames are
	// the objects and arrays open at the place read, outermost first; names
	// holds the names of the members read in each open object.
	var (
		frameBuf [8]nameFrame
		nameBuf  [foldMapAt][]byte
	)
	frames, names := frameBuf[:0], nameBuf[:0]
	s := data
	i := SkipSpace(s, 0)
	if i == len(s) {
		return nil
	}
	var err error
	for {
		// A value starts at s[i].
		if i >= len(s) {
			return nil
		}
		switch s[i] {
		case '{', '[':
			if len(frames) >= MaxDepth {
				return nil
			}
			object := s[i] == '{'
			frames = append(frames, nameFrame{object: object, start: len(names)})
			i = SkipSpace(s, i+1)
			if i < len(s) && (object && s[i] == '}' || !object && s[i] == ']') {
				frames, names = popFrame(frames, names)
				i++
				break
			}
			if object {
				if i, names, err = readMember(s, i, frames, names); err != nil || i < 0 {
					return err
				}
			}
			continue
		case '"':
			end, _, ok := stringEnd(s, i)
			if !ok {
				return nil
			}
			i = end
		case 't', 'f', 'n':
			lit := "null"
			if s[i] == 't' {
				lit = "true"
			} else if s[i] == 'f' {
				lit = "false"
			}
			if !bytes.HasPrefix(s[i:], []byte(lit)) {
				return nil
			}
			i += len(lit)
		default:
			end, ok := SkipNumber(s, i)
			if !ok {
				return nil
			}
			i = end
		}
		// A value ended at s[i]: close the objects and arrays it ends.
	closing:
		for {
			i = SkipSpace(s, i)
			if len(frames) == 0 || i >= len(s) {
				return nil
			}
			f := &frames[len(frames)-1]
			switch {
			case s[i] == ',':
				i = SkipSpace(s, i+1)
				f.n++
				if f.object {
					if i, names, err = readMember(s, i, frames, names); err != nil || i < 0 {
						return err
					}
				}
				break closing
			case f.object && s[i] == '}', !f.object && s[i] == ']':
				frames, names = popFrame(frames, names)
				i++
			default:
				return nil
			}
		}
	}
}

// foldMapAt is the number of members past which an object's names are
// compared through a map of their folded forms rather than pairwise.
const foldMapAt = 16

// nameFrame is an object or array open in the text CheckNames reads.
type nameFrame struct {
	object bool
	n      int               // the index of the current element of an array
	start  int               // where the object's names start in the names
	key    []byte            // the name of the current member of an object
	folded map[string]string // past foldMapAt names: each name's folded form
}

// popFrame closes the innermost object or array.
func popFrame(frames []nameFrame, names [][]byte) ([]nameFrame, [][]byte) {
	f := frames[len(frames)-1]
	return frames[:len(frames)-1], names[:f.start]
}

// readMember reads the name of a member at s[i] and its colon, checks the name
// against the others of the innermost of frames, whose names end names,
// and returns the index of its value, or -1 for text that is not JSON, and
// the names with this one.
func readMember(s []byte, i int, frames []nameFrame, names [][]byte) (int, [][]byte, error) {
	if i >= len(s) || s[i] != '"' {
		return -1, names, nil
	}
	end, plain, ok := stringEnd(s, i)
	if !ok {
		return -1, names, nil
	}
	name := s[i+1 : end-1]
	if !plain && (bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name)) {
		var decoded string
		if json.Unmarshal(s[i:end], &decoded) != nil {
			return -1, names, nil
		}
		name = []byte(decoded)
	}
	f := &frames[len(frames)-1]
	f.key = name
	if prev, ok := sameName(f, names[f.start:], name); ok {
		return 0, names, duplicateName(frames, prev, name)
	}
	i = SkipSpace(s, end)
	if i >= len(s) || s[i] != ':' {
		return -1, names, nil
	}
	return SkipSpace(s, i+1), append(names, name), nil
}

// sameName returns the name of the object f, whose names are names, that
// is name or equal to it when case is folded, if there is one.
func sameName(f *nameFrame, names [][]byte, name []byte) ([]byte, bool) {
	if len(names) < foldMapAt {
		for _, prev := range names {
			if bytes.EqualFold(prev, name) {
				return prev, true
			}
		}
		return nil, false
	}
	if f.folded == nil {
		f.folded = make(map[string]string, 2*len(names))
		for _, prev := range names {
			f.folded[string(foldName(prev))] = string(prev)
		}
	}
	folded := string(foldName(name))
	if prev, ok := f.folded[folded]; ok {
		return []byte(prev), true
	}
	f.folded[folded] = string(name)
	return nil, false
}

// duplicateName returns the error of the names prev and name, which are one
// when case is folded, in the innermost object of frames.
func duplicateName(frames []nameFrame, prev, name []byte) error {
	where := "in the top-level object"
	if len(frames) > 1 {
		var path strings.Builder
		for _, f := range frames[:len(frames)-1] {
			if f.object {
				path.WriteString(msg.KeyPath(string(f.key)))
			} else {
				path.WriteString("[" + strconv.Itoa(f.n) + "]")
			}
		}
		where = "in the object at " + strings.TrimPrefix(path.String(), ".")
	}
	if bytes.Equal(prev, name) {
		return msg.Errorf(ErrDuplicateKey, "key %s appears twice %s", quoteName(name), where)
	}
	return msg.Errorf(ErrDuplicateKey, "keys %s and %s %s are one key when case is folded, as encoding/json folds it",
		quoteName(prev), quoteName(name), where)
}

// quoteName returns name quoted in ASCII for an error message, cut short
// when it is long: a name that looks like another ("K", the Kelvin sign)
// shows its escape.
func quoteName(name []byte) string {
	h, t := msg.Cut(string(name), msg.MaxQuoted)
	return strconv.QuoteToASCII(h) + t
}

// foldName returns name, UTF-8, with each rune replaced by the smallest
// rune of its orbit under Unicode simple case folding: two names are equal
// under strings.EqualFold exactly when their folded forms are equal.
func foldName(name []byte) []byte {
	out := make([]byte, 0, len(name))
	for _, r := range string(name) {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		out = utf8.AppendRune(out, least)
	}
	return out
}

// stringEnd returns the index after the JSON string whose opening quote is
// at s[i], and whether it is plain, ASCII without escapes, and so its own
// content; false for a string that is not JSON.
func stringEnd(s []byte, i int) (end int, plain, ok bool) {
	if j, ascii := PlainRun(s, i+1); ascii && j < len(s) && s[j] == '"' {
		return j + 1, true, true
	}
	end, _, ok = SkipString(s, i)
	return end, false, ok
}
