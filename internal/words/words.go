package words

import "strconv"

// Count is n and the noun, plural unless n is 1: "1 pod", "0 pods".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Agree is one when n is 1, else many: Agree(n, "is", "are").
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
