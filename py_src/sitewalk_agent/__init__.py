"""Runs on the agent server: Sitewalk's inspection graph and its embedded scripted model."""
