"""Entry point of `python -m sitewalk_agent.audit` (see `sitewalk_agent.audit.cli`)."""

import sys

from sitewalk_agent.audit.cli import main

sys.exit(main())
