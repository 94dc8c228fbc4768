// Package all links every connector into the binary: importing it runs
// each connector package's init, which registers it with connectors.
// Add a blank import here for each new connector package.
package all

import (
	_ "github.com/stactor/stactor/connectors/assert"
	_ "github.com/stactor/stactor/connectors/cdc/postgres"
	_ "github.com/stactor/stactor/connectors/console"
	_ "github.com/stactor/stactor/connectors/copy"
	_ "github.com/stactor/stactor/connectors/fake"
	_ "github.com/stactor/stactor/connectors/fieldmapper"
	_ "github.com/stactor/stactor/connectors/filter"
	_ "github.com/stactor/stactor/connectors/filterrowkind"
	_ "github.com/stactor/stactor/connectors/jdbc"
	_ "github.com/stactor/stactor/connectors/jsonpath"
	_ "github.com/stactor/stactor/connectors/kafka"
	_ "github.com/stactor/stactor/connectors/localfile"
	_ "github.com/stactor/stactor/connectors/replace"
	_ "github.com/stactor/stactor/connectors/rowkindextractor"
	_ "github.com/stactor/stactor/connectors/split"
	_ "github.com/stactor/stactor/connectors/sql"
)
