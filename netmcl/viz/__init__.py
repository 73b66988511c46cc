"""Pictures of clusterings: matplotlib drawings (``plot``), the Cytoscape
push (``cytoscape``), an interactive HTML view (``html``, :func:`netmcl.view`),
the names they show (``names``); the colours they share are :mod:`netmcl.palette`'s.

The submodules import matplotlib and py4cytoscape only when called; this
package imports none of them.
"""
