"""Pictures of clusterings: matplotlib drawings (``plot``), the Cytoscape
push (``cytoscape``), an interactive HTML view (``html``, :func:`netmcl.view`),
the colours they share (``palette``) and the names they show (``names``).

The submodules import matplotlib and py4cytoscape only when called; this
package imports none of them.
"""
