// Package objectcheck holds the step API's checks on objects of any kind:
// an object matches a partial object (maps as subsets, lists by their merge
// keys where the kind's Go type has them, by position otherwise), waited
// for a bounded time; an object does not exist, or is gone within that time.
package objectcheck
