"""Go's text/template (Go 1.22 as helm-docs v1.14.2 is built), with the sprig functions helm-docs
templates use: lexer and parser, execution, builtin functions.

Matches Go's output byte for byte; never imports gsvendor's domain modules.
"""
