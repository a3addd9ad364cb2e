"""A small BERT-style Transformer encoder classifier: token and learned position embeddings,
LayerNorm, a stack of post-norm nn.TransformerEncoderLayers (GELU feed-forward, batch first),
the mean of the tokens' states (over the tokens not padded, when a padding mask is given) and
a Dense classifier."""
from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.nn.layer.basic import Dense, Dropout
from mycel.nn.layer.embedding import Embedding
from mycel.nn.layer.normalization import LayerNorm
from mycel.nn.layer.transformer import TransformerEncoder, TransformerEncoderLayer


class TransformerEncoderClassifier(Cell):
    """TransformerEncoderClassifier(vocab_size, num_classes, d_model=128, nhead=4,
    num_layers=2, dim_feedforward=512, max_len=128, dropout=0.1).

    Inputs (ids, padding_mask=None): ids [N, S] int32; padding_mask [N, S] bool, True at
    padding. Output: logits [N, num_classes]."""

    def __init__(self, vocab_size, num_classes, d_model=128, nhead=4, num_layers=2,
                 dim_feedforward=512, max_len=128, dropout=0.1):
        super().__init__()
        self.tok = Embedding(vocab_size, d_model)
        self.pos = Embedding(max_len, d_model)
        self.norm = LayerNorm((d_model,))
        self.dropout = Dropout(p=dropout)
        layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                        activation="gelu", batch_first=True)
        self.encoder = TransformerEncoder(layer, num_layers)
        self.head = Dense(d_model, num_classes)

    def construct(self, ids, padding_mask=None):
        positions = _C.Tensor(list(range(ids.shape[1])), _C.int32)
        x = self.dropout(self.norm(self.tok(ids) + self.pos(positions)))
        x = self.encoder(x, None, padding_mask)
        if padding_mask is None:
            return self.head(x.mean(1))
        keep = (1 - padding_mask.astype(x.dtype)).expand_dims(2)
        return self.head((x * keep).sum(1) / keep.sum(1))
