package config

import (
	"fmt"

	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/messages"
)

// EncodeTree turns a parsed job (hocon.Value, variables filled) into its
// wire form, positions kept. The submitting client sends it; the master
// plans from it without reading files or the environment (DESIGN §2).
func EncodeTree(root *hocon.Value) *messages.Hocon {
	e := &treeEncoder{index: map[string]int32{}}
	out := e.value(root)
	out.Files = e.files
	return out
}

type treeEncoder struct {
	files []string
	index map[string]int32
}

func (e *treeEncoder) file(name string) int32 {
	if i, ok := e.index[name]; ok {
		return i
	}
	i := int32(len(e.files))
	e.files = append(e.files, name)
	e.index[name] = i
	return i
}

func (e *treeEncoder) value(v *hocon.Value) *messages.Hocon {
	if v == nil {
		return nil
	}
	out := &messages.Hocon{Kind: int32(v.Kind), Text: v.Text, Quoted: v.Quoted,
		Line: int32(v.Pos.Line), Col: int32(v.Pos.Col), File: e.file(v.Pos.File)}
	for _, f := range v.Fields {
		out.Fields = append(out.Fields, &messages.HoconField{Key: f.Key, KeyLine: int32(f.KeyPos.Line), KeyCol: int32(f.KeyPos.Col),
			KeyFile: e.file(f.KeyPos.File), Value: e.value(f.Value)})
	}
	for _, it := range v.Items {
		out.Items = append(out.Items, e.value(it))
	}
	return out
}

// maxTreeDepth bounds the nesting a decoded tree may have, so a hostile
// message cannot exhaust the stack.
const maxTreeDepth = 200

// DecodeTree is EncodeTree's inverse. A tree that is not one EncodeTree
// makes (an unknown kind, a file index out of range, nesting past 200) is
// an error.
func DecodeTree(m *messages.Hocon) (*hocon.Value, error) {
	if m == nil {
		return nil, fmt.Errorf("the job has no configuration tree")
	}
	return decodeValue(m, m.Files, 0)
}

func decodeValue(m *messages.Hocon, files []string, depth int) (*hocon.Value, error) {
	if depth > maxTreeDepth {
		return nil, fmt.Errorf("job configuration nested deeper than %d levels", maxTreeDepth)
	}
	if m.Kind < int32(hocon.Null) || m.Kind > int32(hocon.Array) {
		return nil, fmt.Errorf("job configuration: unknown value kind %d", m.Kind)
	}
	pos, err := treePos(files, m.File, m.Line, m.Col)
	if err != nil {
		return nil, err
	}
	v := &hocon.Value{Kind: hocon.Kind(m.Kind), Text: m.Text, Quoted: m.Quoted, Pos: pos}
	for _, f := range m.Fields {
		if f.Value == nil {
			return nil, fmt.Errorf("job configuration: key %q has no value", f.Key)
		}
		kp, err := treePos(files, f.KeyFile, f.KeyLine, f.KeyCol)
		if err != nil {
			return nil, err
		}
		fv, err := decodeValue(f.Value, files, depth+1)
		if err != nil {
			return nil, err
		}
		v.Fields = append(v.Fields, &hocon.Field{Key: f.Key, KeyPos: kp, Value: fv})
	}
	for _, it := range m.Items {
		iv, err := decodeValue(it, files, depth+1)
		if err != nil {
			return nil, err
		}
		v.Items = append(v.Items, iv)
	}
	return v, nil
}

func treePos(files []string, file, line, col int32) (hocon.Pos, error) {
	if file < 0 || int(file) >= len(files) {
		if file == 0 && len(files) == 0 {
			return hocon.Pos{Line: int(line), Col: int(col)}, nil
		}
		return hocon.Pos{}, fmt.Errorf("job configuration: file index %d out of range", file)
	}
	return hocon.Pos{File: files[file], Line: int(line), Col: int(col)}, nil
}

// ParseForSubmit is what a submitting client does with a job file (DESIGN
// §2): parse it, read its includes, fill its variables from vars and this
// process's environment, check the env block, and encode the tree to
// ship. Mistakes come back as *Error with the file, line and key.
func ParseForSubmit(file string, src []byte, vars map[string]string) (*messages.Hocon, *Job, error) {
	root, err := ParseTree(file, src, vars)
	if err != nil {
		return nil, nil, err
	}
	job, err := FromTree(file, root)
	if err != nil {
		return nil, nil, err
	}
	return EncodeTree(root), job, nil
}
