/**
 * Pages for the requisite reader's tests (test/extract/requisites.test.ts):
 * a hand-built Sphinx documentation page, as Sphinx 7 with the alabaster
 * theme writes one, with the requisites a browser would fetch for it listed
 * by hand.
 */
import type { Requisite } from '../../src/extract/requisites.js';

/** A Sphinx page: stylesheets, scripts, images, a figure, a video, look-alikes in code, comments and scripts. */
export const SPHINX_PAGE = `<!DOCTYPE html>

<html lang="en" data-content_root="./">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" /><meta name="viewport" content="width=device-width, initial-scale=1" />

    <title>Tutorial &#8212; Crawler 0.1 documentation</title>
    <link rel="stylesheet" type="text/css" href="_static/pygments.css?v=d1102ebc" />
    <link rel="stylesheet" type="text/css" href="_static/alabaster.css?v=12dfc556" />
    <link rel="stylesheet" type="text/css" href="_static/copybutton.css?v=76b2166b" />
    <script src="_static/documentation_options.js?v=2709fde1"></script>
    <script src="_static/doctools.js?v=9a2dae69"></script>
    <script src="_static/sphinx_highlight.js?v=dc90522c"></script>
    <script src="_static/clipboard.min.js?v=a7894cd8"></script>
    <script src="_static/copybutton.js?v=f281be69"></script>
    <script async="async" src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>
    <link rel="icon" href="_static/favicon.ico"/>
    <link rel="index" title="Index" href="genindex.html" />
    <link rel="search" title="Search" href="search.html" />
    <link rel="next" title="API reference" href="api.html" />
    <link rel="prev" title="Installation" href="install.html" />

  <link rel="stylesheet" href="_static/custom.css" type="text/css" />

  <script>
    var tpl = '<img src="_static/not-fetched.png">';
    document.write('<link rel="stylesheet" href="_static/written-by-script.css">');
  </script>
  <style>
    @import url("_static/fonts.css");
    .admonition.tip { background: #f8f8f8 url(_static/tip.svg) no-repeat 8px 8px; }
  </style>
  </head><body>
  <div class="document">
    <div class="documentwrapper">
      <div class="bodywrapper">
        <div class="body" role="main">

  <section id="tutorial">
<h1>Tutorial<a class="headerlink" href="#tutorial" title="Link to this heading">¶</a></h1>
<p>Start with <a class="reference internal" href="install.html"><span class="doc">Installation</span></a>, then crawl:</p>
<div class="highlight-html notranslate"><div class="highlight"><pre><span></span><span class="p">&lt;</span><span class="nt">img</span> <span class="na">src</span><span class="o">=</span><span class="s">&quot;escaped-in-code.png&quot;</span><span class="p">&gt;</span>
</pre></div>
</div>
<!-- <img src="_images/commented-out.png"> -->
<figure class="align-default" id="id1">
<a class="reference internal image-reference" href="_images/frontier.png"><img alt="The frontier" src="_images/frontier.png" style="width: 600px;" /></a>
<figcaption>
<p><span class="caption-text">The frontier, per host.</span></p>
</figcaption>
</figure>
<img alt="_images/logo.svg" class="align-center" src="_images/logo.svg" srcset="_images/logo.svg 1x, _images/logo@2x.png 2x" />
<picture>
  <source type="image/avif" srcset="_images/chart.avif 1x, _images/chart@2x.avif 2x">
  <IMG SRC="_images/chart.png" ALT="Chart">
</picture>
<video controls="True" poster="_static/demo-poster.jpg" width="640">
<source src="_static/demo.webm" type="video/webm">
<source src="_static/demo.mp4" type="video/mp4">
<track kind="captions" src="_static/demo.en.vtt" srclang="en" label="English">
</video>
<object data="_static/architecture.svg" type="image/svg+xml"></object>
<iframe src="https://www.youtube-nocookie.com/embed/abc" title="Talk"></iframe>
<div class="admonition note" style="background-image: url(&quot;_static/note-bg.png&quot;)">
<p class="admonition-title">Note</p>
<p>Images: <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">, none.</p>
</div>
</section>

        </div>
      </div>
    </div>
    <div class="sphinxsidebar" role="navigation" aria-label="Main">
        <div class="sphinxsidebarwrapper">
<p class="logo">
  <a href="index.html">
    <img class="logo" src="_static/logo-small.png" alt="Logo"/>
  </a>
</p>
<search id="searchbox" style="display: none" role="search">
  <h3 id="searchlabel">Quick search</h3>
    <div class="searchformwrapper">
    <form class="search" action="search.html" method="get">
      <input type="text" name="q" aria-labelledby="searchlabel" autocomplete="off" autocorrect="off" autocapitalize="off" spellcheck="false"/>
      <input type="image" src="_static/search-go.png" alt="Go" />
    </form>
    </div>
</search>
<script>document.getElementById('searchbox').style.display = "block"</script>
<noscript><img src="https://stats.example.org/pixel.gif?site=1&amp;page=tutorial" alt=""></noscript>
        </div>
    </div>
    <div class="clearer"></div>
  </div>
    <div class="footer">
      &#169;2024, The Authors.
      |
      Powered by <a href="https://www.sphinx-doc.org/">Sphinx 7.2.6</a>
      &amp; <a href="https://alabaster.readthedocs.io">Alabaster 0.7.16</a>
      |
      <a href="_sources/tutorial.rst.txt" rel="nofollow">Page source</a>
    </div>
  </body>
</html>
`;

/** What a browser fetches to display SPHINX_PAGE (every srcset candidate, as an archive wants), in document order. */
export const SPHINX_REQUISITES: Requisite[] = [
  { raw: '_static/pygments.css?v=d1102ebc', kind: 'stylesheet' },
  { raw: '_static/alabaster.css?v=12dfc556', kind: 'stylesheet' },
  { raw: '_static/copybutton.css?v=76b2166b', kind: 'stylesheet' },
  { raw: '_static/documentation_options.js?v=2709fde1', kind: 'script' },
  { raw: '_static/doctools.js?v=9a2dae69', kind: 'script' },
  { raw: '_static/sphinx_highlight.js?v=dc90522c', kind: 'script' },
  { raw: '_static/clipboard.min.js?v=a7894cd8', kind: 'script' },
  { raw: '_static/copybutton.js?v=f281be69', kind: 'script' },
  { raw: 'https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js', kind: 'script' },
  { raw: '_static/favicon.ico', kind: 'icon' },
  { raw: '_static/custom.css', kind: 'stylesheet' },
  { raw: '_static/fonts.css', kind: 'style-import' },
  { raw: '_static/tip.svg', kind: 'style-url' },
  { raw: '_images/frontier.png', kind: 'image' },
  { raw: '_images/logo.svg', kind: 'image' },
  { raw: '_images/logo.svg', kind: 'image' },
  { raw: '_images/logo@2x.png', kind: 'image' },
  { raw: '_images/chart.avif', kind: 'image' },
  { raw: '_images/chart@2x.avif', kind: 'image' },
  { raw: '_images/chart.png', kind: 'image' },
  { raw: '_static/demo-poster.jpg', kind: 'image' },
  { raw: '_static/demo.webm', kind: 'media' },
  { raw: '_static/demo.mp4', kind: 'media' },
  { raw: '_static/demo.en.vtt', kind: 'track' },
  { raw: '_static/architecture.svg', kind: 'object' },
  { raw: '_static/note-bg.png', kind: 'style-url' },
  { raw: '_static/logo-small.png', kind: 'image' },
  { raw: '_static/search-go.png', kind: 'image' },
  { raw: 'https://stats.example.org/pixel.gif?site=1&page=tutorial', kind: 'image' },
];
