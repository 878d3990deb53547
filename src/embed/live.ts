/**
 * The widget's live updates: an `EventSource` on the public embed stream (`/embed/stream`, the
 * same selection as `data-src`), which on any change asks the widget's own script to refresh
 * (a `live` event on the root), a quarter second later so a burst makes one request. Where
 * `EventSource` is missing, or the stream is refused (the per-address cap), the widget keeps
 * polling every `data-refresh` seconds as before. Allowed by its SHA-256 in the widget's CSP
 * (`connect-src 'self'` already covers the stream), so it must stay a constant.
 */
export const LIVE_JS = `(function(){
var root=document.getElementById('w');
if(!root||typeof EventSource!=='function')return;
var src=root.getAttribute('data-src');if(!src)return;
var url=new URL(src,location.href);url.pathname=url.pathname.replace(/\\/data$/,'/stream');
var source=new EventSource(url.toString()),pending=null;
function changed(){if(pending)return;pending=setTimeout(function(){pending=null;root.dispatchEvent(new Event('live'))},250)}
['signal','update','retraction'].forEach(function(type){source.addEventListener(type,changed)});
source.onopen=function(){root.setAttribute('data-live','on')};
source.onerror=function(){if(source.readyState===2)root.setAttribute('data-live','off')};
})();`;

/** Concurrent public embed streams one client address may hold (a page may frame a few widgets). */
export const EMBED_STREAMS_PER_ADDRESS = 3;
