"""Pictures of clusterings: matplotlib drawings (``plot``), the Cytoscape
push (``cytoscape``) and the colours both use (``palette``).

The submodules import matplotlib and py4cytoscape only when called; this
package imports none of them.
"""
