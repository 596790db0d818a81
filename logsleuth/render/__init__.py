"""Report renderers: text (rich), json (the report contract), markdown. Import the one you need:
`logsleuth.render.json` does not pull in rich."""
