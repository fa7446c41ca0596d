package toolnexus

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolnexus-go/toolnexus/internal/b64"
	"github.com/toolnexus-go/toolnexus/internal/msg"
	"github.com/toolnexus-go/toolnexus/internal/wire"
)

// PartType says what a [ContentPart] carries.
type PartType string

// The part types.
const (
	PartText  PartType = "text"  // text in ContentPart.Text
	PartImage PartType = "image" // an image/* payload
	PartFile  PartType = "file"  // a document such as a PDF
	PartAudio PartType = "audio" // an audio/* payload
)

// ContentPart is one piece of non-text (or extra text) output of a tool: an
// image, a file or an audio clip as a MIME type plus either base64 Data or a
// URL, or a piece of text.
//
// A ContentPart is a comparable value that never holds a path, an open file or
// a reader: the constructors read and encode at once, so a part can be stored,
// replayed and sent to another process. Data is standard base64 with padding
// and no line breaks, the same bytes that travel in JSON. The zero ContentPart
// is not valid: [ContentPart.Validate] reports what is missing.
//
// A part never prints or logs its payload: String, GoString, Format and
// LogValue show its type, MIME type and size. A bare []ContentPart, or a map
// holding parts, handed to [slog.JSONHandler] is encoded as JSON, payload
// included: slog cannot redact a slice or map, and a custom MarshalJSON would
// make every [encoding/json.Marshal] re-scan the payload. Log the [ToolResult]
// holding the parts, or its [ToolResult.Redacted] copy, instead.
type ContentPart struct {
	Type     PartType `json:"type"`
	Text     string   `json:"text,omitempty"`     // text parts only
	MIMEType string   `json:"mimeType,omitempty"` // non-text parts only
	Data     string   `json:"data,omitempty"`     // standard base64, padded, no line breaks
	URL      string   `json:"url,omitempty"`      // where the payload is, when not in Data
	Name     string   `json:"name,omitempty"`     // display name of a file part
}

// extensions is the fixed extension table: the MIME type of each file
// extension the package recognises, never the machine's MIME database. It
// holds no active content (no .svg, .html or program): a file of another
// type needs its MIME type given explicitly.
var extensions = map[string]string{
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".gif":  "image/gif",
	".webp": "image/webp",
	".heic": "image/heic",
	".pdf":  "application/pdf",
	".txt":  "text/plain",
	".md":   "text/markdown",
	".csv":  "text/csv",
	".json": "application/json",
	".mp3":  "audio/mpeg",
	".wav":  "audio/wav",
	".ogg":  "audio/ogg",
	".flac": "audio/flac",
	".m4a":  "audio/mp4",
}

// extensionOf maps each MIME type of the extension table back to its
// shortest extension (".jpg" for image/jpeg), to name an unnamed file.
var extensionOf = func() map[string]string {
	m := make(map[string]string, len(extensions))
	for ext, t := range extensions {
		if old, ok := m[t]; !ok || len(ext) < len(old) || len(ext) == len(old) && ext < old {
			m[t] = ext
		}
	}
	return m
}()

// MIMETypeOf returns the MIME type that the fixed extension table gives the
// last extension of name, matched case-insensitively: png, jpg, jpeg, gif,
// webp and heic are images; pdf, txt, md, csv and json files; mp3, wav, ogg,
// flac and m4a audio. It reports [ErrUnknownExtension] for any other name.
func MIMETypeOf(name string) (string, error) {
	ext := filepath.Ext(name)
	if m, ok := extensions[strings.ToLower(ext)]; ok {
		return m, nil
	}
	if ext == "" || ext == "." {
		return "", msg.Errorf(ErrUnknownExtension, "%s has no extension: %s", msg.Quote(name), sendKnown)
	}
	return "", msg.Errorf(ErrUnknownExtension, "%s in %s: %s", msg.Quote(ext), msg.Quote(name), sendKnown)
}

// sendKnown ends the message of an unknown extension with what to send
// instead, for the model that named the file, and what its caller may do.
var sendKnown = func() string {
	exts := slices.Sorted(maps.Values(extensionOf))
	for i, e := range exts {
		exts[i] = strings.TrimPrefix(e, ".")
	}
	return "send a " + strings.Join(exts, ", ") + " file, or pass its MIME type"
}()

// typeOf returns the part type for a MIME type: image/* is an image, audio/*
// audio, anything else a file. MIME types are matched case-insensitively.
func typeOf(mimeType string) PartType {
	switch {
	case hasPrefixFold(mimeType, "image/"):
		return PartImage
	case hasPrefixFold(mimeType, "audio/"):
		return PartAudio
	default:
		return PartFile
	}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// newPart returns a part of the type that mimeType implies; a file part is
// named after the base name of name.
func newPart(mimeType, data, name string) ContentPart {
	p := ContentPart{Type: typeOf(mimeType), MIMEType: mimeType, Data: data}
	if p.Type == PartFile {
		p.Name = baseName(name)
	}
	return p
}

// TextPart returns a text part holding text.
func TextPart(text string) ContentPart {
	return ContentPart{Type: PartText, Text: text}
}

// isDataURL reports whether s has the data: scheme, in any case.
func isDataURL(s string) bool {
	return hasPrefixFold(s, "data:")
}

// parseDataURL splits data:<mime>[;params];base64,<data> into its media
// type and data. The payload must be base64: a percent-encoded one is
// refused.
func parseDataURL(s string) (mimeType, data string, err error) {
	if !isDataURL(s) {
		return "", "", msg.Errorf(ErrInvalidDataURL, "%s does not start with data:", msg.Quote(s))
	}
	meta, data, ok := strings.Cut(s[5:], ",")
	if !ok {
		return "", "", msg.Errorf(ErrInvalidDataURL, "%s has no comma", msg.Quote(s))
	}
	i := strings.LastIndexByte(meta, ';')
	if i < 0 || !strings.EqualFold(meta[i+1:], "base64") {
		return "", "", msg.Errorf(ErrInvalidDataURL, "%s is not ;base64", msg.Quote(s))
	}
	if meta[:i] == "" {
		return "", "", msg.Errorf(ErrInvalidDataURL, "%s has no MIME type", msg.Quote(s))
	}
	mimeType, err = parseMIMEType(meta[:i])
	if err != nil {
		return "", "", err
	}
	if data == "" {
		return "", "", msg.Errorf(ErrInvalidDataURL, "%s has no data", msg.Quote(s))
	}
	return mimeType, data, nil
}

// WithName returns a copy of p with the display name n, cut to its base name
// as every name from outside is: the text after its last slash or
// backslash, without control or format characters, and "" for "." or "..".
// Providers show a file part's name to the model.
func (p ContentPart) WithName(n string) ContentPart {
	p.Name = baseName(n)
	return p
}

// Size returns the size of the payload in bytes: the decoded length of Data,
// computed from its length and padding without decoding, or the length of
// Text for a text part. A part that only has a URL has size 0.
func (p ContentPart) Size() int64 {
	if p.Type == PartText {
		return int64(len(p.Text))
	}
	return decodedLen(p.Data)
}

// decodedLen is the decoded length of base64 data from its length and padding.
func decodedLen(data string) int64 {
	n := int64(len(data))
	pad := int64(0)
	if n > 0 && data[n-1] == '=' {
		pad++
		if n > 1 && data[n-2] == '=' {
			pad++
		}
	}
	return max(n*3/4-pad, 0)
}

// Validate reports whether p is well formed: a known type; for a text part,
// no data or URL; for any other part, a type/subtype MIME type that
// fits the part type, no text, and exactly one of Data (canonical standard
// base64) or URL (absolute, and not a data URL).
func (p ContentPart) Validate() error { return p.validate(false) }

// validate is Validate for a part whose data is known to be canonical
// base64 when canonical is true.
func (p ContentPart) validate(canonical bool) error {
	switch p.Type {
	case PartText:
		if p.Data != "" || p.URL != "" {
			return msg.Errorf(ErrInvalidPart, "text part carries data or url")
		}
		return nil
	case PartImage, PartFile, PartAudio:
	default:
		return msg.Errorf(ErrUnknownPartType, "%s", msg.Quote(string(p.Type)))
	}
	if p.Text != "" {
		return msg.Errorf(ErrInvalidPart, "%s part carries text", p.Type)
	}
	if err := checkMIMEType(p.MIMEType); err != nil {
		return err
	}
	if want := typeOf(p.MIMEType); p.Type != PartFile && want != p.Type {
		return msg.Errorf(ErrInvalidMIMEType, "%s for an %s part", msg.Quote(p.MIMEType), p.Type)
	}
	switch {
	case p.Data != "" && p.URL != "":
		return msg.Errorf(ErrInvalidPart, "%s part has both data and url", p.Type)
	case p.Data == "" && p.URL == "":
		return msg.Errorf(ErrInvalidPart, "%s part has neither data nor url", p.Type)
	case p.URL != "":
		return checkURL(p.URL)
	case canonical:
		return nil
	}
	return b64.Check(p.Data)
}

// checkMIMEType accepts a type/subtype MIME type, with parameters or not.
func checkMIMEType(m string) error {
	_, err := parseMIMEType(m)
	return err
}

// parseMIMEType checks a MIME type as RFC 2045 writes one, type/subtype
// tokens with optional parameters, and returns it without them, as written.
func parseMIMEType(m string) (string, error) {
	if m == "" {
		return "", ErrMissingMIMEType
	}
	for i := 0; i < len(m); i++ {
		// Only printable ASCII, and spaces and tabs between parameters:
		// nothing around the type is trimmed, and a peer's "image/png\n" or
		// "image/png\u00a0" is no MIME type.
		if c := m[i]; (c < ' ' && c != '\t') || c >= 0x7f {
			return "", msg.Errorf(ErrInvalidMIMEType, "%s holds a control or non-ASCII character", msg.Quote(m))
		}
	}
	bare, params, hasParams := strings.Cut(m, ";")
	typ, sub, ok := strings.Cut(bare, "/")
	if !ok || !isToken(typ) || !isToken(sub) {
		return "", msg.Errorf(ErrInvalidMIMEType, "%s is not type/subtype", msg.Quote(m))
	}
	if hasParams {
		if _, _, err := mime.ParseMediaType(bare + ";" + params); err != nil {
			return "", msg.Errorf(ErrInvalidMIMEType, "%s has malformed parameters", msg.Quote(m))
		}
	}
	return bare, nil
}

// isToken reports whether s is a non-empty RFC 2045 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

// checkURL accepts an absolute URL, without spaces or control characters,
// other than a data URL, whose payload belongs in Data.
func checkURL(u string) error {
	if isDataURL(u) {
		return msg.Errorf(ErrInvalidPart, "data URL %s in url; use PartFromURL to store it as data", msg.Quote(u))
	}
	if !isAbsoluteURL(u) {
		return msg.Errorf(ErrInvalidPart, "url %s is not an absolute URL", msg.Quote(u))
	}
	return nil
}

// isAbsoluteURL reports whether u has a scheme and something after it, and
// no space or control character.
func isAbsoluteURL(u string) bool {
	scheme, rest, ok := strings.Cut(u, ":")
	if !ok || scheme == "" || rest == "" || strings.IndexFunc(u, isSpaceOrControl) >= 0 {
		return false
	}
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// isSpaceOrControl reports whether r may not appear in a URL as it is: a
// space or an ASCII control character, which net/url refuses too.
func isSpaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f
}

// SHA256 returns the SHA-256 hash of the part's content: the decoded bytes of
// Data, or the bytes of Text for a text part. Two parts with the same content
// have the same hash whatever their name, so a store can deduplicate by it.
// A part that only has a URL has no content here and reports [ErrInvalidPart].
func (p ContentPart) SHA256() ([sha256.Size]byte, error) {
	h := sha256.New()
	switch {
	case p.Type == PartText:
		io.WriteString(h, p.Text)
	case p.Data == "":
		return [sha256.Size]byte{}, msg.Errorf(ErrInvalidPart, "%s part has no data to hash", p.Type)
	default:
		if err := b64.Check(p.Data); err != nil {
			return [sha256.Size]byte{}, err
		}
		var buf [8192]byte
		d := base64.NewDecoder(base64.StdEncoding, strings.NewReader(p.Data))
		if _, err := io.CopyBuffer(h, d, buf[:]); err != nil {
			return [sha256.Size]byte{}, msg.Errorf(ErrInvalidBase64, "%v", err)
		}
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum, nil
}

// String describes p without its payload, as every toolnexus port does:
// "image (image/png, 82 bytes)", "text (5 bytes)", or for a part that only
// has a URL, "image (image/png, url)". A part without a type or a MIME type
// says so: the zero ContentPart is "part (no MIME type, 0 bytes)".
func (p ContentPart) String() string {
	return string(p.appendDescription(make([]byte, 0, 48)))
}

func (p ContentPart) appendDescription(b []byte) []byte {
	b = append(b, cmp.Or(msg.Printable(string(p.Type)), "part")...)
	b = append(b, " ("...)
	if p.Type != PartText {
		b = append(b, cmp.Or(msg.Printable(p.MIMEType), "no MIME type")...)
		b = append(b, ", "...)
		if p.Data == "" && p.URL != "" {
			return append(b, "url)"...)
		}
	}
	b = strconv.AppendInt(b, p.Size(), 10)
	return append(b, " bytes)"...)
}

// GoString returns a Go-syntax form of p for %#v in which Data is replaced by
// its size.
func (p ContentPart) GoString() string {
	return fmt.Sprintf("toolnexus.ContentPart{Type:%q, Text:%s, MIMEType:%q, Data:\"<%d bytes>\", URL:%s, Name:%q}",
		p.Type, msg.Quote(p.Text), p.MIMEType, decodedLen(p.Data), msg.Quote(printedURL(p.URL)), p.Name)
}

// Format prints p for every verb without its payload: %#v is [ContentPart.GoString],
// %q the quoted [ContentPart.String], every other verb the String.
func (p ContentPart) Format(f fmt.State, verb rune) {
	wire.Format(f, verb, p)
}

// LogValue implements [slog.LogValuer]: a part logs as a group of its type,
// MIME type, size and name, never its payload or URL.
func (p ContentPart) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 4)
	attrs = append(attrs, slog.String("type", string(p.Type)))
	if p.MIMEType != "" {
		attrs = append(attrs, slog.String("mimeType", p.MIMEType))
	}
	attrs = append(attrs, slog.Int64("size", p.Size()))
	if p.Name != "" {
		attrs = append(attrs, slog.String("name", p.Name))
	}
	return slog.GroupValue(attrs...)
}

// baseName returns a name that came from outside as a display name: the text
// after its last slash or backslash, without control or format characters
// (a NUL, a newline, a right-to-left override), and "" for "." and "..".
func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if strings.IndexFunc(name, isHiddenRune) >= 0 {
		name = strings.Map(func(r rune) rune {
			if isHiddenRune(r) {
				return -1
			}
			return r
		}, name)
	}
	if name == "." || name == ".." {
		return ""
	}
	return name
}

// isHiddenRune reports whether r may not appear in a name shown to a person:
// a control or format character, or a byte that is not UTF-8.
func isHiddenRune(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf) || r == utf8.RuneError
}

// EstimatedTokens returns the toolnexus estimate of the tokens p costs a
// model, the same in every port: a text part a quarter of its length, in
// UTF-16 code units as Java and JavaScript count a string, rounded down;
// any other part max(85, Size()/750), rounded down, whatever its type, so
// that an 82-byte PNG is 85 and a 2 MiB image 2,796. A part by URL, whose
// size is not known, is 85. It is an estimate for budgets and compaction,
// not a count any model's tokenizer gives.
func (p ContentPart) EstimatedTokens() int {
	if p.Type == PartText {
		return utf16Len(p.Text) / 4
	}
	return int(max(85, p.Size()/750))
}

// utf16Len returns the length of s in UTF-16 code units, a byte that is
// not UTF-8 counting as one, as it would once replaced.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
