package jsonscan

// The canonicalizer's parts that the tests check against each other.

// CanonicalArgs returns the canonical form of args that the parser
// writes, and false when it leaves args to encoding/json.
func CanonicalArgs(args []byte) ([]byte, bool) {
	c := canonicalizer{}
	ok := c.args(args)
	return c.out, ok
}

// IsCanonical reports whether args are their own canonical form, which a
// binding then holds as they are.
func IsCanonical(args []byte) bool {
	return isCanonical(args)
}

// CanonicalValue returns the canonical form of the value encoding/json
// decodes from args.
func CanonicalValue(args []byte) ([]byte, error) {
	v, err := DecodeNumbers(args)
	if err != nil {
		return nil, err
	}
	return canonicalValue(nil, v), nil
}
