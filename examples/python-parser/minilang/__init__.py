"""minilang: a small compiler front end, the example component of Murphy & Saenko (1998)'s
memory prediction (`highrise predict`). It generates the source of a toy language, then runs two
phases: `Parser.parse` (tokens and a syntax tree) and `Resolver.resolve` (scopes, a symbol per
definition, a reference per use). Its memory grows with the number of calls, assignments and
procedures in the input, plus fixed costs (the builtin scope)."""
