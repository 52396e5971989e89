"""The reviewer's desk: one page (index.html, desk.js, desk.css: plain files, no build step)
served over HTTP at ``/desk`` and as the MCP App ``ui://review/desk`` (see the review plugin's
``medlit_web_pages``). The page calls the review tools and nothing else; every record string is
shown as text, never as markup."""
