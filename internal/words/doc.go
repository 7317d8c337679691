// Package words writes counts in English for the messages and reports the
// commands print: "1 pod", "3 pods", "1 of them is", "2 of them are". Every
// noun it is given takes a plain -s plural.
package words
