"""Look inside trained models: traces of recurrent states and gates, HMM posteriors, gradients through time.

``trace`` runs a model with its recurrent layers stepped through their cells'
own ``step`` functions and returns every internal (hidden and cell state,
gates) per time step, and an HMM's posterior state probabilities and Viterbi
path (``seqlab.inspect.hmm``, imported here so its probe is registered), and a Transformer's attention
weights per head (``seqlab.inspect.attention``, likewise), over positions named as the model
made them (``seqlab.inspect.positions``: [CLS], [SEP], image patches);
``token_attribution`` gives each token's contribution to a text model's
class probability (integrated gradients or occlusion); ``gradient_through_time`` gives ||dL/dh_t|| for every step of one sample;
``pca`` projects a state trajectory to 2-D.
"""

from seqlab.inspect.attention import AttentionTrace
from seqlab.inspect.attribution import METHODS, TokenAttribution, sentence_probabilities, token_attribution
from seqlab.inspect.gradients import GradientTrace, LayerGradient, gradient_through_time
from seqlab.inspect.hmm import HMMTrace
from seqlab.inspect import positions  # noqa: F401  its probes name the positions a [CLS] or patches make
from seqlab.inspect import receptive_field  # noqa: F401  its probe traces a TCN's blocks and receptive field
from seqlab.inspect import state_space  # noqa: F401  its probe traces a state-space layer's x_t
from seqlab.inspect.projection import Projection, pca
from seqlab.inspect.saved import saved_recurrent_layers, saved_traced_layers
from seqlab.inspect.trace import LayerResult, LayerTrace, Trace, is_recurrent, recurrent_layers, trace

__all__ = [
    "AttentionTrace",
    "METHODS",
    "TokenAttribution",
    "sentence_probabilities",
    "token_attribution",
    "GradientTrace",
    "HMMTrace",
    "LayerGradient",
    "LayerResult",
    "LayerTrace",
    "Projection",
    "Trace",
    "gradient_through_time",
    "is_recurrent",
    "pca",
    "recurrent_layers",
    "saved_recurrent_layers",
    "saved_traced_layers",
    "trace",
]
