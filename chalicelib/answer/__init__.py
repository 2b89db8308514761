"""The answer to a question: the extractive answerer, what it quotes and cites, whether it answers at all, and the checks a generated answer is held to."""
