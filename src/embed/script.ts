/**
 * The widget's main script: shows a map mark's event (its `<title>`) in a tooltip on hover and
 * keyboard focus, and refreshes the list in place every `data-refresh` seconds (while
 * visible) from `data-src`, building nodes with `textContent` so no signal text is ever
 * parsed as markup; also on a `live` event from the live stream (src/embed/live.ts). Allowed by its SHA-256 in the CSP, so it must stay a constant.
 */
export const WIDGET_JS = `(function(){
var box=document.getElementById('mapbox'),tip=document.getElementById('tip');
if(box&&tip){
var mark=function(t){if(!t||!t.getAttribute)return null;if(t.classList&&t.classList.contains('mk'))return t;return t.querySelector?t.querySelector('.mk'):null};
var show=function(e){var m=mark(e.target);if(!m)return;var ti=m.querySelector('title');tip.textContent=ti?ti.textContent:'';tip.hidden=false;
var b=box.getBoundingClientRect(),r=m.getBoundingClientRect();
tip.style.left=Math.max(0,Math.min(r.left-b.left+r.width/2-tip.offsetWidth/2,b.width-tip.offsetWidth))+'px';tip.style.top=(r.bottom-b.top+4)+'px'};
var hide=function(e){if(mark(e.target))tip.hidden=true};
box.addEventListener('mouseover',show);box.addEventListener('focusin',show);box.addEventListener('mouseout',hide);box.addEventListener('focusout',hide)}
var root=document.getElementById('w'),list=document.getElementById('list');
if(!root||!list)return;
var src=root.getAttribute('data-src'),every=Number(root.getAttribute('data-refresh'))*1000;
var MONTHS=['Jan','Feb','Mar','Apr','May','Jun','Jul','Aug','Sep','Oct','Nov','Dec'];
function pad(n){return n<10?'0'+n:String(n)}
function when(iso){var d=new Date(iso);return d.getUTCDate()+' '+MONTHS[d.getUTCMonth()]+' '+pad(d.getUTCHours())+':'+pad(d.getUTCMinutes())+' UTC'}
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e}
function item(s){
var li=el('li','s'),m=el('div','m');
m.append(el('span','l l-'+s.threat_layer,s.threat_layer.replace('_',' ')),el('span','v v-'+s.signal_valence,s.signal_valence),el('span','sc',s.significance_score.toFixed(1)));
if(s.country_codes.length)m.append(el('span','c',s.country_codes.join(' ')));
var t;
if(s.source_url){t=el('a','t',s.title);t.href=s.source_url;t.target='_blank';t.rel='noopener noreferrer'}else{t=el('span','t',s.title)}
var f=el('div','f'),time=el('time',null,when(s.published_at));time.dateTime=s.published_at;
f.append(time,' \\u00b7 '+s.source_name);
li.append(m,t,el('p','d',s.summary),f);
return li}
function refresh(){
if(document.visibilityState==='hidden')return;
fetch(src,{cache:'no-cache',credentials:'omit',headers:{Accept:'application/json'}}).then(function(r){return r.ok?r.json():null}).then(function(data){
if(!data)return;
list.replaceChildren.apply(list,data.items.length?data.items.map(item):[el('li','empty',root.getAttribute('data-empty'))]);
root.setAttribute('data-refreshed',String(Date.now()))}).catch(function(){})}
if(src)root.addEventListener('live',refresh);
if(src&&every>0){setInterval(refresh,every);document.addEventListener('visibilitychange',function(){if(document.visibilityState==='visible')refresh()})}
})();`;
