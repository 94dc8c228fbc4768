// Package resources is the ResourceManager's bookkeeping (DESIGN §7):
// resource profiles (CPU and memory, with merge, subtract and
// enough-than), workers with their profile, tags and slots, and the
// placement strategies RANDOM, SLOT_RATIO and SYSTEM_LOAD with a job's
// tag_filter. It is plain data and functions; the ResourceManager actor
// (actors/resource) owns one Pool and is the only one to change it.
package resources
