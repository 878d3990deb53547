import { LAYER_COLOURS } from './map';

/** The legend's layer dots, in the map's own colours (political, cyber and health follow the theme below). */
const LEGEND_DOTS = Object.entries(LAYER_COLOURS)
  .map(([layer, colour]) => `.lg .mk-${layer}{background:${colour.light}}`)
  .join('');

/**
 * The widget's stylesheet. It is served inline and allowed by its SHA-256 in the CSP, so it
 * must stay the same for the life of the build: nothing per request goes in (the legend's
 * colours come from the map's constant palette). System fonts only (no third-party requests).
 */
export const WIDGET_CSS = `:root{color-scheme:light;--bg:#fff;--fg:#17202a;--mu:#5b6775;--ln:#e3e7ec;--ac:#0b5cad;--cr:#b42318;--up:#7a5c00;--re:#1b7340;--s0:#dfe4ea;--s1:#c6d4e3;--s2:#9fb6cf;--s3:#7693b5;--s4:#4f6f96;--s5:#2c4a70;--sea:#f4f7fa;--mp:#000;--mcy:#0072B2;--mhe:#56B4E9}
.t-dark{color-scheme:dark;--bg:#11151b;--fg:#e6ebf1;--mu:#9ba8b6;--ln:#28313b;--ac:#7cb9ff;--cr:#ff8a7a;--up:#e3c35c;--re:#66d396;--s0:#262e38;--s1:#2f4158;--s2:#3d5878;--s3:#507399;--s4:#6c93bb;--s5:#98bde0;--sea:#11151b;--mp:#fff;--mcy:#56B4E9;--mhe:#0072B2}
@media (prefers-color-scheme:dark){.t-auto{color-scheme:dark;--bg:#11151b;--fg:#e6ebf1;--mu:#9ba8b6;--ln:#28313b;--ac:#7cb9ff;--cr:#ff8a7a;--up:#e3c35c;--re:#66d396;--s0:#262e38;--s1:#2f4158;--s2:#3d5878;--s3:#507399;--s4:#6c93bb;--s5:#98bde0;--sea:#11151b;--mp:#fff;--mcy:#56B4E9;--mhe:#0072B2}}
*{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{padding:12px;min-width:0;overflow-wrap:anywhere}
header{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:4px 12px;border-bottom:1px solid var(--ln);padding-bottom:8px}
h1{font-size:16px;margin:0}
.sub,.f,footer{color:var(--mu);font-size:12px}
ol{list-style:none;margin:0;padding:0}
li{padding:10px 0;border-bottom:1px solid var(--ln)}
.m{display:flex;flex-wrap:wrap;gap:4px 6px;align-items:center;font-size:11px;margin-bottom:4px}
.l{background:var(--lc,#56606b);color:#fff;border-radius:3px;padding:1px 6px;text-transform:uppercase;letter-spacing:.03em}
.l-military{--lc:#8e2c20}.l-cyber{--lc:#5b3fb6}.l-economic{--lc:#2d6a8f}.l-disaster{--lc:#a85b00}
.l-political{--lc:#3d5a80}.l-criminal{--lc:#6b3a4a}.l-health{--lc:#18794e}.l-supply_chain{--lc:#75620b}
.v-crisis{color:var(--cr)}.v-update{color:var(--up)}.v-resolution{color:var(--re)}
.sc{font-weight:600}.c{color:var(--mu)}
.t{color:var(--fg);font-weight:600;text-decoration:none}
a.t:hover,a.t:focus{color:var(--ac);text-decoration:underline}
.d{margin:4px 0;color:var(--fg);opacity:.85}
.empty{color:var(--mu)}
footer{padding-top:8px}
footer a{color:var(--ac)}
#mapbox{position:relative;padding-top:8px}
.map{display:block;width:100%;height:auto}
.map .sea{fill:var(--sea)}.map .s0{fill:var(--s0)}.map .s1{fill:var(--s1)}.map .s2{fill:var(--s2)}
.map .s3{fill:var(--s3)}.map .s4{fill:var(--s4)}.map .s5{fill:var(--s5)}
.map .countries,.map .marks{stroke:var(--bg)}.map .legend{fill:var(--fg)}
.map .mk-political{fill:var(--mp)}.map .mk-cyber{fill:var(--mcy)}.map .mk-health{fill:var(--mhe)}
.map .mk{cursor:pointer}.map a:focus,.map .mk:focus{outline:none}
.map .mk:hover,.map .mk:focus,.map a:focus .mk{stroke:var(--fg);stroke-width:2}
#tip{position:absolute;z-index:1;max-width:90%;background:var(--bg);color:var(--fg);border:1px solid var(--ln);border-radius:4px;padding:4px 6px;font-size:12px;box-shadow:0 2px 6px rgba(0,0,0,.25);pointer-events:none}
@media (max-height:399px){.v-auto #mapbox{display:none}}
summary{cursor:pointer;color:var(--mu);font-size:12px}
table{border-collapse:collapse;width:100%;font-size:12px;margin-top:4px}
caption{text-align:left;color:var(--mu)}
th,td{text-align:left;padding:2px 4px;border-bottom:1px solid var(--ln);vertical-align:top}
td a{color:var(--ac)}
.lg{margin:4px 0;font-size:11px;color:var(--mu)}.lg span{white-space:nowrap}
.lg i{display:inline-block;width:10px;height:10px;margin:0 3px 0 6px;vertical-align:-1px;border-radius:2px}
.lg i.d{border-radius:50%}
.lg .s1{background:var(--s1)}.lg .s2{background:var(--s2)}.lg .s3{background:var(--s3)}.lg .s4{background:var(--s4)}.lg .s5{background:var(--s5)}
${LEGEND_DOTS}.lg .mk-political{background:var(--mp)}.lg .mk-cyber{background:var(--mcy)}.lg .mk-health{background:var(--mhe)}`;
