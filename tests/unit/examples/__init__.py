"""Worked examples for docs/deploy.md: a headless tool and a catalog component, each as real code.

`battery_*.py` add a headless tool (`read_battery_level`): its contract, the agent that offers it, and the
browser's implementation in a registry. `meter_reading.py` and `MeterReading.j2` add a catalog component.
`tests/unit/test_deploy_examples.py` runs them, and checks that the page's snippets are these files' text.
"""
