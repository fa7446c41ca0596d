package toolnexus

import (
	"strconv"
	"strings"

	"github.com/toolnexus-go/toolnexus/internal/b64"
)

// layoutParts splits r the way every destination sends a result (see the
// package doc): texts holds Output, then each text part and each placeholder
// in the order of Parts, leaving out empty text; media holds, in order, the
// block that block makes of each other part. Whether a part is carried is
// decided by carryOf with carries, the destination's decision, as
// [ToolResult.Unsupported] decides it: a part that fails
// [ContentPart.Validate] or that carries refuses leaves its placeholder among
// the texts. block sees only the parts carried.
func layoutParts[B any](r ToolResult, carries func(ContentPart) carry, block func(i int, p ContentPart) B) (texts []string, media []B) {
	n := 0
	for _, p := range r.Parts {
		if p.Type != PartText {
			n++
		}
	}
	texts = make([]string, 0, 1+len(r.Parts)) // room for a placeholder for every part
	media = make([]B, 0, n)
	addText := func(s string) {
		if s != "" {
			texts = append(texts, s)
		}
	}
	addText(r.Output)
	for i, p := range r.Parts {
		if p.Type == PartText {
			addText(p.Text)
			continue
		}
		if why := carryOf(p, carries); why.reason != "" {
			addText(why.placeholder(p))
			continue
		}
		media = append(media, block(i, p))
	}
	return texts, media
}

// mediaType returns the media type of a part's MIME type as providers want it
// written: lower case, without parameters ("Image/PNG; q=1" is "image/png").
func mediaType(mimeType string) string {
	t, _, _ := strings.Cut(mimeType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// webURL reports whether u is an http or https URL, the only URLs the model
// providers fetch.
func webURL(u string) bool {
	return hasPrefixFold(u, "https://") || hasPrefixFold(u, "http://")
}

// placeholderText is the text that stands for a part a destination cannot
// carry: "[unsupported image part (image/png, 82 bytes)]", or for a part that
// only has a URL, "[unsupported file part (application/pdf, url https://…)]";
// data that is not base64 shows its own length, "(image/png, 11 bytes, not
// base64)", for its decoded size would be a guess. It never holds the payload.
// A type or MIME type that is not a short token shows as "unknown", so that
// odd input cannot inject text.
func placeholderText(p ContentPart) string {
	return string(appendPlaceholder(make([]byte, 0, 64), p, "", false))
}

// tooLarge is the placeholder of a part over a size limit of a destination
// on its decoded bytes; limit says which, as "the 20 MB OpenAI takes in an
// image".
func tooLarge(p ContentPart, limit string) string {
	return string(appendPlaceholder(make([]byte, 0, 96), p, "larger than "+limit, false))
}

// tooLargeBase64 is the placeholder of a part over a size limit of a
// destination on its base64, as "the 5 MiB of base64 Anthropic takes in an
// image": it gives the size of the part's base64, the unit of the limit,
// "[unsupported image part (image/png, 5592408 bytes of base64): larger
// than …]".
func tooLargeBase64(p ContentPart, limit string) string {
	return string(appendPlaceholder(make([]byte, 0, 96), p, "larger than "+limit, true))
}

// appendPlaceholder appends the placeholder of p, refused for why, which
// may be empty; its size is that of p's base64 when inBase64 is set, else of
// its decoded bytes.
func appendPlaceholder(b []byte, p ContentPart, why string, inBase64 bool) []byte {
	b = append(b, "[unsupported "...)
	b = append(b, mimeLabel(string(p.Type))...)
	b = append(b, " part ("...)
	if p.MIMEType != "" {
		b = append(b, mimeLabel(p.MIMEType)...)
		b = append(b, ", "...)
	}
	switch {
	case p.Data == "" && p.URL != "" && checkURL(p.URL) == nil:
		b = append(b, "url "...)
		b = append(b, p.URL...)
	case p.Data == "" && p.URL != "":
		b = append(b, "url"...)
	case b64.Check(p.Data) != nil:
		// Its decoded size would be a guess.
		b = strconv.AppendInt(b, int64(len(p.Data)), 10)
		b = append(b, " bytes, not base64"...)
	case inBase64:
		b = strconv.AppendInt(b, int64(len(p.Data)), 10)
		b = append(b, " bytes of base64"...)
	default:
		b = strconv.AppendInt(b, decodedLen(p.Data), 10)
		b = append(b, " bytes"...)
	}
	b = append(b, ')')
	if why != "" {
		b = append(b, ": "...)
		b = append(b, why...)
	}
	return append(b, ']')
}

// maxLabel is the longest type or MIME type a placeholder shows.
const maxLabel = 64

// mimeLabel returns s when it is a short run of the characters of a MIME type,
// else "unknown".
func mimeLabel(s string) string {
	if s == "" || len(s) > maxLabel {
		return "unknown"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$&^_.+-/", c) >= 0
		if !ok {
			return "unknown"
		}
	}
	return s
}

// dataURL returns data:<media type>;base64,<data> for a part holding data.
func dataURL(p ContentPart) string {
	return "data:" + mediaType(p.MIMEType) + ";base64," + p.Data
}

// fileName returns the part's name, or "file" with the extension the fixed
// extension table gives its media type ("file.pdf"), or "file".
func fileName(p ContentPart) string {
	if p.Name != "" {
		return p.Name
	}
	return "file" + extensionOf[mediaType(p.MIMEType)]
}
