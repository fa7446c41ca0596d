package elicitschema_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolnexus-go/toolnexus/internal/elicitschema"
)

// form parses a schema the tests know to be a form.
func form(t *testing.T, schema map[string]any) *elicitschema.Form {
	t.Helper()
	f, err := elicitschema.Parse(schema)
	require.NoError(t, err)
	return f
}

// TestParse checks what a form takes and the errors of what it does not,
// which name the keyword or the property, for the caller to wrap.
func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		schema map[string]any
		err    string
	}{
		{"a string", map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string", "maxLength": 5.0}}}, ""},
		{"no properties", map[string]any{"type": "object", "properties": map[string]any{}}, ""},
		{"not an object", map[string]any{"type": "array"}, `type is not "object"`},
		{"an unknown keyword", map[string]any{"type": "object", "properties": map[string]any{}, "if": true}, `keyword "if" is not one an elicitation form takes`},
		{"a nested object", map[string]any{"type": "object", "properties": map[string]any{"o": map[string]any{"type": "object"}}},
			`property "o": type "object" is not string, number, integer, boolean or array`},
		{"bounds the wrong way", map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number", "minimum": 2.0, "maximum": 1.0}}},
			`property "n": maximum is less than minimum`},
		{"a default off its type", map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"type": "boolean", "default": "yes"}}},
			`property "b": default is a string, not a boolean`},
		{"required, not a property", map[string]any{"type": "object", "properties": map[string]any{}, "required": []any{"x"}},
			`required property "x" is not in properties`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := elicitschema.Parse(tt.schema)
			if tt.err == "" {
				require.NoError(t, err)
				assert.NotNil(t, f)
				return
			}
			assert.EqualError(t, err, tt.err)
			assert.Nil(t, f)
		})
	}
}

// TestCheck checks answers against a form: a value of each property's type
// within its bounds passes, defaults fill what is absent and not required,
// and each error names the property, never the value.
func TestCheck(t *testing.T) {
	t.Parallel()
	f := form(t, map[string]any{"type": "object", "required": []any{"env"}, "properties": map[string]any{
		"env":      map[string]any{"type": "string", "enum": []any{"dev", "prod"}},
		"replicas": map[string]any{"type": "integer", "minimum": 1.0, "default": 2.0},
		"notify":   map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"mail", "chat"}}},
	}})
	got, err := f.Check(map[string]any{"env": "prod"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"env": "prod", "replicas": 2.0}, got)

	for content, want := range map[string]map[string]any{
		`property "env" is not one of its choices`:                                        {"env": "staging"},
		`required property "env" is missing`:                                              {"replicas": 3.0},
		`property "replicas" is not an integer`:                                           {"env": "dev", "replicas": 1.5},
		`property "replicas" is less than minimum 1`:                                      {"env": "dev", "replicas": 0.0},
		`property "notify" item 0 is not one of its choices`:                              {"env": "dev", "notify": []any{"pager"}},
		`property "extra" is an object, not a string, number, boolean or list of strings`: {"env": "dev", "extra": map[string]any{}},
	} {
		_, err := f.Check(want)
		assert.EqualError(t, err, content)
	}
}

// TestStrings checks the lists of strings a schema and an answer hold.
func TestStrings(t *testing.T) {
	t.Parallel()
	got, ok := elicitschema.Strings([]any{"a", "b"})
	assert.True(t, ok)
	assert.Equal(t, []string{"a", "b"}, got)
	_, ok = elicitschema.Strings([]any{"a", 1.0})
	assert.False(t, ok)
	_, ok = elicitschema.Strings("a")
	assert.False(t, ok)
}

// TestDateTimeFormat checks the date-time format of an elicitation's
// string against RFC 3339's grammar (section 5.6) and its leap second
// (5.7): 23:59:60 in UTC once the offset is applied, in either case of "T"
// and "Z".
func TestDateTimeFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s     string
		valid bool
	}{
		{"1963-06-19T08:30:06.283185Z", true},
		{"1963-06-19t08:30:06.283185z", true},
		{"1963-06-19T08:30:06+23:59", true},
		{"1963-06-19T08:30:06-00:00", true},
		{"1998-12-31T23:59:60Z", true},
		{"1998-12-31T15:59:60.123-08:00", true},
		{"1999-01-01T00:59:60+01:00", true},
		{"1998-12-31T23:59:61Z", false},
		{"1998-12-31T23:58:60Z", false},
		{"1998-12-31T22:59:60Z", false},
		{"1998-12-31T23:59:60+01:00", false},
		{"1963-06-19T08:30:06+24:00", false},
		{"1963-06-19T08:30:06-24:00", false},
		{"1963-06-19T08:30:06+23:60", false},
		{"1963-06-19T08:30:06+2:00", false},
		{"1963-06-19T24:00:00Z", false},
		{"1963-06-19T08:60:00Z", false},
		{"1990-02-31T15:59:59.123-08:00", false},
		{"1963-06-19 08:30:06Z", false},
		{"1963-06-19T08:30:06.Z", false},
		{"1963-06-19T08:30:06", false},
		{"06/19/1963 08:30:06 PST", false},
	} {
		assert.Equal(t, tt.valid, elicitschema.ValidFormat("date-time", tt.s), tt.s)
	}
}
