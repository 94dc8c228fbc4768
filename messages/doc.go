// Package messages holds stactor's actor messages: the protobuf control
// messages generated from stactor.proto (regenerate with `go tool task
// proto`), the in-process data messages that carry batches as Go values,
// and the priority of each (DESIGN §3).
package messages
