"""On 3.12+, every sys.monitoring tool id the agent could use is taken by someone else: the agent
falls back to the profile hook. Runs mt_workload's worker on threads."""
import sys

import highrise_agent

for tool_id in (2, 3, 4, 5):
    sys.monitoring.use_tool_id(tool_id, "someone-else")

from mt_workload import main  # noqa: E402

agent = highrise_agent.start(program="tools-taken")
sys.stderr.write("mechanism %s\n" % agent.recorder.mechanism)
main()
