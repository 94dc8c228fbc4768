package storage

import "github.com/stactor/stactor/messages"

// JobSealer encrypts a job's secrets for storage and decrypts them when it
// is read back (config.Sealer, DESIGN §11).
type JobSealer interface {
	SealSpec(*messages.JobSpec) (*messages.JobSpec, error)
	OpenSpec(*messages.JobSpec) (*messages.JobSpec, error)
}

// WithSealedJobs is s, storing every job spec with its secrets sealed by
// sealer and opening them on LoadJob; everything else is s's.
func WithSealedJobs(s Storage, sealer JobSealer) Storage { return &sealed{s, sealer} }

type sealed struct {
	Storage
	sealer JobSealer
}

func (s *sealed) SaveJob(spec *messages.JobSpec) error {
	out, err := s.sealer.SealSpec(spec)
	if err != nil {
		return err
	}
	return s.Storage.SaveJob(out)
}

func (s *sealed) LoadJob(job string) (*messages.JobSpec, error) {
	spec, err := s.Storage.LoadJob(job)
	if err != nil {
		return nil, err
	}
	return s.sealer.OpenSpec(spec)
}
