package messages

import "github.com/asynkron/protoactor-go/actor"

// FromPID converts a protoactor PID for a message.
func FromPID(p *actor.PID) *Pid {
	if p == nil {
		return nil
	}
	return &Pid{Address: p.Address, Id: p.Id}
}

// ToPID converts a message's Pid back to a protoactor PID.
func ToPID(p *Pid) *actor.PID {
	if p == nil {
		return nil
	}
	return actor.NewPID(p.Address, p.Id)
}
