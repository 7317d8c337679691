// Package ordered computes a function of each item of a list on several
// goroutines and hands the results back in the list's order, a bounded
// window ahead of whoever reads them: how a file of a hundred thousand
// documents is decoded, and its pods admitted, on every core without
// holding them all.
package ordered
