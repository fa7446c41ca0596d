package elicitschema

// ValidFormat is validFormat, the check of a string's format.
var ValidFormat = validFormat
