"""Colours, shapes and CSS shared by the drawing, the player and the HTML export.

Palette: Okabe-Ito (safe for the common colour-vision deficiencies). Every fill is light enough for
dark text, so nodes read the same in JupyterLab's light and dark themes; edges and edge labels are
mid-grey, which reads on both (the graph background is transparent). No cue is colour alone:
each kind also differs in shape, border style and label text.
"""

OKABE_ITO = {
    "orange": "#E69F00", "sky_blue": "#56B4E9", "bluish_green": "#009E73", "yellow": "#F0E442",
    "blue": "#0072B2", "vermillion": "#D55E00", "reddish_purple": "#CC79A7", "black": "#000000",
}

FONT = "Helvetica,Arial,sans-serif"
TEXT = "#111111"
BORDER = "#222222"
GREY = "#888888"             # edges, edge labels, cluster labels: mid-grey reads on light and dark
ACTIVE = OKABE_ITO["vermillion"]
FREED_FILL = "#D9D9D9"

# kind -> DOT attributes (static: the same in every frame)
TENSOR_STYLE = {
    "param": {"shape": "box", "style": "filled,bold", "fillcolor": OKABE_ITO["sky_blue"], "penwidth": "2"},
    "const": {"shape": "box", "style": "filled,dotted", "fillcolor": "#EEEEEE"},
    "computed": {"shape": "box", "style": "filled", "fillcolor": "#FFFFFF"},
}
ROOT_FILL = OKABE_ITO["orange"]
OP_STYLE = {"shape": "ellipse", "style": "filled", "fillcolor": OKABE_ITO["yellow"]}
BACKWARD_OP_FILL = OKABE_ITO["reddish_purple"]
CHAIN_STYLE = {"shape": "ellipse", "style": "filled,bold", "fillcolor": OKABE_ITO["yellow"], "peripheries": "2"}
SUMMARY_STYLE = {"shape": "note", "style": "filled,dashed", "fillcolor": "#FFFFFF"}

# state -> DOT attributes, for static drawings (the player uses the CSS below instead)
ACTIVE_ATTRS = {"color": ACTIVE, "penwidth": "3.5"}
FREED_ATTRS = {"fillcolor": FREED_FILL}
PRUNED_STYLE = "dashed"

ACTIVE_MARK = "\u25b6 "      # "▶ ": the active node says so in words too

# The player's SVG restyles nodes by class; rules are scoped to svg.agl-svg.
SVG_CSS = f"""
svg.agl-svg {{ max-width: 100%; height: auto; }}
svg.agl-svg .agl-hidden {{ visibility: hidden; }}
svg.agl-svg g.node > text:first-of-type {{ font-weight: bold; }}
svg.agl-svg g.agl-active > polygon, svg.agl-svg g.agl-active > ellipse, svg.agl-svg g.agl-active > path
  {{ stroke: {ACTIVE}; stroke-width: 3.5px; }}
svg.agl-svg g.agl-freed > ellipse, svg.agl-svg g.agl-freed > polygon {{ fill: {FREED_FILL}; }}
svg.agl-svg g.agl-freed text.agl-l-saves {{ text-decoration: line-through; fill: #444444; }}
svg.agl-svg g.agl-pruned > ellipse, svg.agl-svg g.agl-pruned > polygon {{ stroke-dasharray: 5 3; }}
svg.agl-svg g.agl-pruned {{ opacity: 0.6; }}
svg.agl-svg g.edge.agl-edge-active > path {{ stroke: {ACTIVE}; stroke-width: 3px; }}
svg.agl-svg g.edge.agl-edge-active > polygon {{ stroke: {ACTIVE}; fill: {ACTIVE}; }}
svg.agl-svg g.edge.agl-edge-active > text {{ fill: {ACTIVE}; font-weight: bold; }}
"""

# The page around an exported player (and the side panel's table, also used in the widget).
PANEL_CSS = """
.agl-panel table { border-collapse: collapse; font: 12px/1.35 Helvetica, Arial, sans-serif; }
.agl-panel th, .agl-panel td { padding: 2px 6px; border-bottom: 1px solid rgba(128,128,128,0.35);
  text-align: left; vertical-align: top; }
.agl-panel td.agl-num { font-family: Menlo, Consolas, monospace; }
.agl-panel .agl-changed { font-weight: bold; }
"""
