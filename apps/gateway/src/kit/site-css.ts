/**
 * The pages' one stylesheet (served by the gateway, cached for a year under a hashed name): system fonts, AA contrast,
 * fluid down to 320 px.
 */
export const SITE_CSS = `:root{--ink:#1b1f24;--muted:#4a525c;--line:#d5dae0;--accent:#0b5394;--bad:#a4161a;
--good:#1e6b34;--paper:#fff;--soft:#f3f5f7}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);
background:var(--paper)}
a{color:var(--accent)}
a:focus,button:focus,input:focus,.scroll:focus{outline:3px solid #f2a900;outline-offset:2px}
.vh,.skip{position:absolute;left:-999px;width:1px;height:1px;overflow:hidden}.skip:focus{left:8px;top:8px;
width:auto;height:auto;background:var(--paper);padding:4px 8px}
header,main,footer,.notice{max-width:60rem;margin:0 auto;padding:0 1rem}
header{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem;
padding-top:.75rem;padding-bottom:.75rem;border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.15rem;text-decoration:none;color:var(--ink)}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:1rem}
.notice{font-size:.9rem;color:var(--muted);padding-top:.5rem}
.facts{list-style:none;padding:0;display:grid;gap:.5rem;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr))}
.facts li,.card{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.75rem}
.products{list-style:none;padding:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr))}
.card h3{margin-top:0}
.photo{display:block;max-width:100%;height:auto;border-radius:4px}.card .photo{width:100%;margin-bottom:.5rem}
.product-photo{max-width:min(100%,32rem)}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem;border-bottom:1px solid var(--line);vertical-align:top}
td.num,th.num{text-align:right}
td code,p code{overflow-wrap:anywhere}
h1{overflow-wrap:break-word}
td.changes{min-width:16rem}
.mail-text{white-space:pre-wrap;overflow-wrap:anywhere}
dd code{overflow-wrap:anywhere}
.scroll{overflow-x:auto;max-width:100%}
form{margin:.5rem 0}
label{display:block;font-weight:600;margin-top:.5rem}
.choice label{display:inline;font-weight:400}
fieldset{border:1px solid var(--line);border-radius:6px}
input[type=text],input[type=email],input[type=password],input[type=tel],input[type=number]{font:inherit;
padding:.4rem;border:1px solid var(--muted);border-radius:4px;width:100%;max-width:24rem}
input[type=number]{max-width:6rem}
.quantity input[type=number]{width:4.5rem;display:block}.quantity button{padding:.3rem .6rem;
margin-right:.25rem}.each,.block{display:block}.each{font-weight:400;color:var(--muted);font-size:.9rem}
button{font:inherit;font-weight:600;padding:.45rem 1rem;border:0;border-radius:4px;background:var(--accent);
color:#fff;cursor:pointer;margin-top:.5rem}
button.quiet{background:var(--soft);color:var(--accent);border:1px solid var(--accent)}
.inline{display:inline}
.error{color:var(--bad);font-weight:600}
.ok{color:var(--good);font-weight:600}
.order-window{font-weight:600}
.soldout{color:var(--bad)}
.status{font-size:1.25rem;font-weight:700}
figure{margin:1rem 0}.chart{display:block;width:100%;height:auto;max-width:40rem}
.chart .bar{fill:var(--accent)}.chart .grid{stroke:var(--line)}.chart text{fill:var(--ink)}
footer{margin-top:2rem;padding-top:1rem;padding-bottom:2rem;border-top:1px solid var(--line);font-size:.9rem}`;
