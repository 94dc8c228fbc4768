package consul

// WithoutPlanRef is r without where its plan is stored, for comparing a
// record read back with the one written.
func WithoutPlanRef(r JobRecord) JobRecord {
	r.plan = planRef{}
	return r
}
