"""Model definitions shared by scripts/export_models.py and benchmarks.

Keep this file importable under both torch 1.13 (ONNX export) and torch 2.x
(benchmarks): only use APIs present in both.

    module, example_inputs, input_names, output_names = build("resnet50")

`build` seeds with torch.manual_seed(0) immediately before constructing the
module (random init, no weight downloads) and returns it in eval() mode.
The example inputs are generated afterwards with torch.manual_seed(1).
"""

import torch
import torch.nn as nn

MODEL_NAMES = ("resnet50", "mobilenet_v2", "efficientnet_b0", "vit_b_16", "bert_encoder")
# Exported on request only (not part of MODEL_NAMES' default set): ResNeXt-50's
# grouped 3x3 convs (32 groups) exercise the grouped-conv tactics.
EXTRA_VISION_MODELS = ("resnext50_32x4d", "googlenet")
# The classification part of the model zoo: architectures Debian's torchvision
# builds without downloads, with seeded weights and batch norms calibrated on
# seeded random batches (see _vision). Exported on request (--models ZOO).
ZOO_VISION_MODELS = ("mobilenet_v3_large", "mobilenet_v3_small", "shufflenet_v2_x1_0",
                     "squeezenet1_1", "regnet_y_400mf", "convnext_tiny", "swin_t",
                     "densenet121")
VISION_MODELS = (("resnet50", "mobilenet_v2", "efficientnet_b0", "vit_b_16") +
                 EXTRA_VISION_MODELS + ZOO_VISION_MODELS)
# Exported on request only: BERT-base as Hugging Face writes it (separate
# query/key/value projections, 4-D heads), for horizontal fusion.
EXTRA_TEXT_MODELS = ("bert_hf",)
TEXT_MODELS = ("bert_encoder",) + EXTRA_TEXT_MODELS
# Small models for quick end-to-end tests (not exported by default).
SMALL_MODELS = ("fashion_mnist_cnn",)

# BERT-base sizes.
BERT_VOCAB = 30522
BERT_HIDDEN = 768
BERT_MAX_POS = 512
BERT_TYPE_VOCAB = 2
BERT_HEADS = 12
BERT_FFN = 3072
BERT_LAYERS = 12
BERT_PAD_TAIL = 16  # number of trailing positions masked out in example inputs


def _reinit_encoder_layer(layer):
    for m in layer.modules():
        if not isinstance(m, nn.MultiheadAttention) and hasattr(m, "reset_parameters"):
            m.reset_parameters()  # Linear (incl. MHA out_proj), LayerNorm
    for m in layer.modules():
        if isinstance(m, nn.MultiheadAttention):
            m._reset_parameters()  # in_proj xavier, in_proj/out_proj bias = 0


class BertEncoder(nn.Module):
    """BERT-base style encoder: embeddings + LayerNorm + 12 post-LN layers.

    forward(input_ids: int64 [B,S], attention_mask: int64 [B,S]) -> [B,S,768]
    attention_mask: 1 = real token, 0 = padding (ignored as attention key).
    Token-type ids are implicitly all zero.
    """

    def __init__(self, vocab=BERT_VOCAB, hidden=BERT_HIDDEN, max_pos=BERT_MAX_POS,
                 type_vocab=BERT_TYPE_VOCAB, heads=BERT_HEADS, ffn=BERT_FFN,
                 layers=BERT_LAYERS, dropout=0.1):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(max_pos, hidden)
        self.token_type_embeddings = nn.Embedding(type_vocab, hidden)
        self.emb_layer_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.emb_dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(
            d_model=hidden, nhead=heads, dim_feedforward=ffn, activation="gelu",
            batch_first=True, dropout=dropout)
        # enable_nested_tensor=False: the nested-tensor fast path zeroes padded
        # positions and is not ONNX-exportable; keep dense semantics everywhere.
        self.encoder = nn.TransformerEncoder(layer, num_layers=layers,
                                             enable_nested_tensor=False)
        # TransformerEncoder deep-copies `layer`, so all clones would start with
        # identical weights (and the ONNX exporter would then dedup them into
        # one shared set). Re-initialise every clone (deterministically, since
        # the caller seeds before construction) as if built independently.
        for lyr in self.encoder.layers:
            _reinit_encoder_layer(lyr)
        self.register_buffer("position_ids", torch.arange(max_pos).unsqueeze(0),
                             persistent=False)

    def forward(self, input_ids, attention_mask):
        seq = input_ids.shape[1]
        position_ids = self.position_ids[:, :seq]
        token_type_ids = torch.zeros_like(input_ids)
        x = (self.word_embeddings(input_ids)
             + self.position_embeddings(position_ids)
             + self.token_type_embeddings(token_type_ids))
        x = self.emb_dropout(self.emb_layer_norm(x))
        return self.encoder(x, src_key_padding_mask=(attention_mask == 0))


class HfBertLayer(nn.Module):
    """One post-LN BERT layer as Hugging Face's BertLayer computes it: separate
    query/key/value Linear layers, heads as [B, H, S, D], an additive mask."""

    def __init__(self, hidden=BERT_HIDDEN, heads=BERT_HEADS, ffn=BERT_FFN):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn_in = nn.Linear(hidden, ffn)
        self.ffn_out = nn.Linear(ffn, hidden)
        self.ffn_norm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x, mask_add):
        b, s, e = x.shape
        def heads(t):
            return t.view(b, s, self.heads, self.head_dim).transpose(1, 2)
        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        scores = q @ k.transpose(-1, -2) / (self.head_dim ** 0.5) + mask_add
        a = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, s, e)
        x = self.attn_norm(x + self.attn_out(a))
        return self.ffn_norm(x + self.ffn_out(torch.nn.functional.gelu(self.ffn_in(x))))


class HfBertEncoder(nn.Module):
    """BertEncoder's embeddings and sizes with Hugging Face-style layers.

    forward(input_ids: int64 [B,S], attention_mask: int64 [B,S]) -> [B,S,768]
    """

    def __init__(self, layers=BERT_LAYERS):
        super().__init__()
        self.word_embeddings = nn.Embedding(BERT_VOCAB, BERT_HIDDEN)
        self.position_embeddings = nn.Embedding(BERT_MAX_POS, BERT_HIDDEN)
        self.token_type_embeddings = nn.Embedding(BERT_TYPE_VOCAB, BERT_HIDDEN)
        self.emb_layer_norm = nn.LayerNorm(BERT_HIDDEN, eps=1e-12)
        self.layers = nn.ModuleList([HfBertLayer() for _ in range(layers)])
        self.register_buffer("position_ids", torch.arange(BERT_MAX_POS).unsqueeze(0),
                             persistent=False)

    def forward(self, input_ids, attention_mask):
        seq = input_ids.shape[1]
        x = (self.word_embeddings(input_ids)
             + self.position_embeddings(self.position_ids[:, :seq])
             + self.token_type_embeddings(torch.zeros_like(input_ids)))
        x = self.emb_layer_norm(x)
        mask_add = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_add)
        return x


class FashionMnistCnn(nn.Module):
    """The architecture of examples/fashion-mnist (untrained): [B,1,28,28] -> [B,10]."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(32 * 5 * 5, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def _calibrate_batch_norms(model, batches=4, batch=8):
    """Replace fresh batch-norm statistics (mean 0, variance 1) by the
    statistics of a few seeded random batches, as training would set them, so
    that activations keep their scale through deep stacks (fp16 included)."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if not bns:
        return model
    for m in bns:
        m.momentum = None  # cumulative average
        m.reset_running_stats()
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch, 3, 224, 224))
    return model


def calibrates_batch_norms(name):
    """Whether `name`'s batch-norm statistics come from seeded batches (and
    so must be measured again when its weights change)."""
    return name in ZOO_VISION_MODELS or name in ("googlenet", "efficientnet_b0")


def recalibrate_batch_norms(module):
    """Measures `module`'s batch-norm statistics again (after its weights
    changed); returns it in eval mode."""
    torch.manual_seed(2)
    return _calibrate_batch_norms(module).eval()


def _vision(name):
    import torchvision.models as tvm
    if name == "googlenet":
        # GoogLeNet's own init (truncated normal, std 0.01) with fresh batch
        # norm statistics shrinks activations ~100x per Inception block (the
        # logits are the fc bias alone): calibrate the statistics instead.
        return _calibrate_batch_norms(
            tvm.googlenet(weights=None, aux_logits=False, init_weights=True))
    if calibrates_batch_norms(name):
        return _calibrate_batch_norms(getattr(tvm, name)(weights=None))
    return getattr(tvm, name)(weights=None)


def example_inputs(name, batch=1, seq=128):
    """Seeded (torch.manual_seed(1)) example inputs for `name`."""
    torch.manual_seed(1)
    if name in VISION_MODELS:
        return (torch.randn(batch, 3, 224, 224, dtype=torch.float32),)
    if name == "fashion_mnist_cnn":
        return (torch.randn(batch, 1, 28, 28, dtype=torch.float32),)
    if name in TEXT_MODELS:
        if not 1 <= seq <= BERT_MAX_POS:
            raise ValueError("seq must be in [1, %d]" % BERT_MAX_POS)
        input_ids = torch.randint(0, BERT_VOCAB, (batch, seq), dtype=torch.int64)
        attention_mask = torch.ones(batch, seq, dtype=torch.int64)
        pad = min(BERT_PAD_TAIL, seq - 1)  # never mask every key (would give NaN)
        if pad > 0:
            attention_mask[:, seq - pad:] = 0
        return (input_ids, attention_mask)
    raise ValueError("unknown model %r (known: %s)" % (name, ", ".join(MODEL_NAMES)))


def build(name, batch=1, seq=128):
    """Return (module.eval(), example_inputs, input_names, output_names)."""
    if name in VISION_MODELS:
        torch.manual_seed(0)
        module = _vision(name)
        input_names, output_names = ["input"], ["logits"]
    elif name == "fashion_mnist_cnn":
        torch.manual_seed(0)
        module = FashionMnistCnn()
        input_names, output_names = ["input"], ["logits"]
    elif name == "bert_encoder":
        torch.manual_seed(0)
        module = BertEncoder()
        input_names, output_names = ["input_ids", "attention_mask"], ["hidden_states"]
    elif name == "bert_hf":
        torch.manual_seed(0)
        module = HfBertEncoder()
        input_names, output_names = ["input_ids", "attention_mask"], ["hidden_states"]
    else:
        raise ValueError("unknown model %r (known: %s)" % (name, ", ".join(MODEL_NAMES)))
    module.eval()
    return module, example_inputs(name, batch, seq), input_names, output_names
