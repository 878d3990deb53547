/**
 * The widget's stylesheet. It is served inline and allowed by its SHA-256 in the CSP, so it
 * must stay a constant: no interpolation. System fonts only (no third-party requests).
 */
export const WIDGET_CSS = `:root{color-scheme:light;--bg:#fff;--fg:#17202a;--mu:#5b6775;--ln:#e3e7ec;--ac:#0b5cad;--cr:#b42318;--up:#7a5c00;--re:#1b7340}
.t-dark{color-scheme:dark;--bg:#11151b;--fg:#e6ebf1;--mu:#9ba8b6;--ln:#28313b;--ac:#7cb9ff;--cr:#ff8a7a;--up:#e3c35c;--re:#66d396}
@media (prefers-color-scheme:dark){.t-auto{color-scheme:dark;--bg:#11151b;--fg:#e6ebf1;--mu:#9ba8b6;--ln:#28313b;--ac:#7cb9ff;--cr:#ff8a7a;--up:#e3c35c;--re:#66d396}}
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
footer a{color:var(--ac)}`;
