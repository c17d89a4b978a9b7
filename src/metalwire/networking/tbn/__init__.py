"""Trait-based networking: which ports a VIF attaches to, chosen by the node's traits.

- ``expression.py``: the filter language's tree, evaluation (with reasons) and printing
- ``parser.py``: its tokenizer and recursive-descent parser (errors give the column)
- ``rules.py``: traits, actions and the YAML file (errors give the line)
- ``views.py``: the ports, portgroups and network as the planner reads them
- ``planner.py``: the plan of one VIF attach, the trait that applies and each action
- ``task_plan.py``: that plan for a network interface's task
- ``targets.py``: the one target the plan puts the VIF on, a dynamic portgroup built if asked
- ``settings.py``: the ``[conductor] trait_based_networking_*`` options put to use, and the
  rules in force (``RulesInForce``)
"""
