package config

import (
	"fmt"
	"strings"
)

// OptionType is the type an option's value must have.
type OptionType int

// The option types.
const (
	TypeString   OptionType = iota
	TypeInt                 // a whole number (int64)
	TypeFloat               // a number
	TypeBool                // true/false (also yes/no, on/off)
	TypeEnum                // a string from Option.Enum, case-insensitive
	TypeStrings             // a list of strings (a single string is a list of one)
	TypeObject              // a nested object, read by the plugin
	TypeList                // a list of anything, read by the plugin
	TypeAny                 // anything, read by the plugin
	TypeDuration            // milliseconds as a number, or "10s", "500ms"
)

var typeNames = [...]string{"string", "integer", "number", "boolean", "one of", "list of strings", "object", "list", "value", "duration"}

func (t OptionType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "?"
}

// Option declares one option of a plugin (or of env): its key, type,
// whether it is required, its default, and other names it may be given by
// (SeaTunnel's fallback keys, such as result_table_name for plugin_output).
type Option struct {
	Key       string
	Type      OptionType
	Required  bool
	Default   any
	Enum      []string
	Fallbacks []string
	// Prefix: Key is a prefix and any key starting with Key+"." belongs to
	// this option (e.g. "string.fake.mode" style families). Rarely needed.
	Prefix bool
	// Template: a string value may hold ${...} names the plugin fills
	// itself; elsewhere one the job's variables left is an error
	// (placeholders.go).
	Template bool
	Doc      string
}

// Describe renders the option for help texts and errors.
func (o Option) Describe() string {
	var b strings.Builder
	b.WriteString(o.Key)
	b.WriteString(" (")
	if o.Type == TypeEnum {
		b.WriteString("one of " + strings.Join(o.Enum, ", "))
	} else {
		b.WriteString(o.Type.String())
	}
	if o.Required {
		b.WriteString(", required")
	} else if o.Default != nil {
		fmt.Fprintf(&b, ", default %v", o.Default)
	}
	b.WriteString(")")
	return b.String()
}

// CommonPluginOptions are accepted by every plugin; the engine reads them.
var CommonPluginOptions = []Option{
	{Key: "plugin_output", Type: TypeString, Fallbacks: []string{"result_table_name"}, Doc: "name of the table this plugin outputs"},
	{Key: "plugin_input", Type: TypeStrings, Fallbacks: []string{"source_table_name"}, Doc: "names of the tables this plugin reads"},
	{Key: "parallelism", Type: TypeInt, Doc: "this plugin's parallelism (env's by default)"},
}
