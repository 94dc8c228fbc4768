package kafka

import "testing"

// Broker and NewTopic are the package's test broker for the external
// test package (which can import the engine without an import cycle).
func Broker() string { return broker }

func NewTopic(t testing.TB, n int) string { return newTopic(t, n) }
