"""Helpers for testing pipelines that use netmcl (standard library only).

:mod:`netmcl.testing.cyrest_standin` runs a local stand-in for Cytoscape's
CyREST API, so code that pushes clusters to Cytoscape can be tested where
Cytoscape cannot run (CI machines, servers).
"""
