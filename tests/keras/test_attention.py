"""MultiHeadAttention, Attention and AdditiveAttention: outputs and attention scores against the numbers Keras 3
gives for the same weights, Keras 3's weight names, shapes and order (and `.weights.h5` layout), gradients
against finite differences (float64), dropout, functional models and summary(), a small transformer block that
learns with fit, and the input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")


def inputs(seed: int, *shapes: tuple) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s).astype(np.float32) for s in shapes]


def set_seeded_weights(layer, seed: int = 0) -> None:
    """Every weight from a seeded numpy generator (the same arrays were given to the Keras layer)."""
    rng = np.random.default_rng(seed)
    layer.set_weights([rng.normal(scale=0.5, size=tuple(w.shape)).astype(np.float32) for w in layer.weights])


# (batch 2, query positions 3, key positions 4): query 0 may attend to keys 0, 1, 3; its position 2 to none
MASK = np.array([[[1, 1, 0, 1], [1, 0, 0, 0], [0, 0, 0, 0]], [[1, 1, 1, 1], [0, 1, 1, 0], [1, 0, 1, 1]]], bool)


def mha_case(name: str) -> tuple:
    """(layer, positional arguments, keyword arguments) of one MultiHeadAttention case."""
    x, q, v, k = inputs(1, (2, 3, 4), (2, 3, 4), (2, 4, 5), (2, 4, 3))
    if name == "self":
        return layers.MultiHeadAttention(2, 2), (x, x), {}
    if name == "cross":
        return layers.MultiHeadAttention(2, 3), (q, v), {}
    if name == "key value_dim output_shape":
        return layers.MultiHeadAttention(2, 2, value_dim=3, output_shape=(2, 3)), (q, v, k), {}
    if name == "mask":
        return layers.MultiHeadAttention(2, 2), (q, v), {"attention_mask": MASK}
    if name == "causal":
        return layers.MultiHeadAttention(2, 2), (x, x), {"use_causal_mask": True}
    if name == "causal and 2-D mask":
        return layers.MultiHeadAttention(2, 2), (q, v), {"use_causal_mask": True, "attention_mask": MASK[1]}
    if name == "value_mask no bias":
        mask = np.array([[1, 1, 0, 0], [1, 1, 1, 0]], bool)
        return layers.MultiHeadAttention(2, 2, use_bias=False), (q, v), {"value_mask": mask}
    if name == "gate and sliding_window":
        return layers.MultiHeadAttention(2, 2, use_gate=True, sliding_window=2), (x, x), {}
    if name == "rank 4":
        a, b = inputs(2, (2, 2, 3, 4), (2, 2, 2, 4))
        return layers.MultiHeadAttention(2, 2), (a, b), {}
    if name == "rank 4 axis 2":
        a, b = inputs(2, (2, 2, 3, 4), (2, 2, 2, 4))
        return layers.MultiHeadAttention(2, 2, attention_axes=2, output_shape=3), (a, b), {}
    raise KeyError(name)


def luong_case(name: str) -> tuple:
    """(layer, inputs list, keyword arguments) of one Attention or AdditiveAttention case."""
    q, v, k = inputs(3, (2, 3, 4), (2, 4, 5), (2, 4, 4))
    q_mask = np.array([[1, 0, 1], [1, 1, 1]], bool)
    v_mask = np.array([[1, 1, 0, 0], [0, 1, 1, 1]], bool)
    if name == "dot":
        return layers.Attention(), [q, k], {}
    if name == "dot scale key masks":
        return layers.Attention(use_scale=True), [q, v, k], {"mask": [q_mask, v_mask]}
    if name == "concat causal":
        return layers.Attention(score_mode="concat"), [q, k], {"use_causal_mask": True}
    if name == "concat scale value_mask":
        return layers.Attention(use_scale=True, score_mode="concat"), [q, v, k], {"mask": [None, v_mask]}
    if name == "additive":
        return layers.AdditiveAttention(), [q, v, k], {}
    if name == "additive no scale masks causal":
        return layers.AdditiveAttention(use_scale=False), [q, k], {"mask": [q_mask, v_mask], "use_causal_mask": True}
    raise KeyError(name)


MHA_CASES = [
    "self",
    "cross",
    "key value_dim output_shape",
    "mask",
    "causal",
    "causal and 2-D mask",
    "value_mask no bias",
    "gate and sliding_window",
    "rank 4",
    "rank 4 axis 2",
]
LUONG_CASES = [
    "dot",
    "dot scale key masks",
    "concat causal",
    "concat scale value_mask",
    "additive",
    "additive no scale masks causal",
]


def run(layer, args, kwargs):
    """Build the layer on the case's inputs, give it the seeded weights, and call it returning the scores."""
    if isinstance(args, list):
        layer(args, **kwargs)
        set_seeded_weights(layer)
        return layer(args, return_attention_scores=True, **kwargs)
    layer(*args, **kwargs)
    set_seeded_weights(layer)
    return layer(*args, return_attention_scores=True, **kwargs)


# Printed by Keras 3.15 (TensorFlow 2.21) for the cases above: the same code with `layers = keras.layers`,
# [output, attention scores] of `run(*mha_case(name))` ('mha ' + name) and `run(*luong_case(name))`, rounded to
# 7 decimals.
KERAS_3 = {
    "mha self": [
        [
            [
                [0.0094008, 0.4074086, 0.8912868, 1.0301042],
                [0.0462825, 0.2790727, 0.835127, 1.1632247],
                [0.0448288, 0.2067567, 0.8378208, 1.1766785],
            ],
            [
                [-1.0427716, 1.6514177, 0.2342901, 1.233052],
                [-0.9887139, 1.7302204, 0.0921991, 1.0917611],
                [-1.0954913, 1.7108263, 0.034624, 1.2489414],
            ],
        ],
        [
            [
                [
                    [0.3786994, 0.3235055, 0.2977952],
                    [0.2906832, 0.3437517, 0.365565],
                    [0.3166112, 0.3147647, 0.3686241],
                ],
                [[0.122088, 0.471405, 0.406507], [0.2337325, 0.3941436, 0.3721238], [0.2727533, 0.3703011, 0.3569456]],
            ],
            [
                [[0.2907862, 0.2914854, 0.4177284], [0.3227401, 0.34423, 0.3330299], [0.3538912, 0.2768673, 0.3692415]],
                [
                    [0.2968699, 0.311346, 0.3917842],
                    [0.3677238, 0.3599777, 0.2722985],
                    [0.2360048, 0.2632506, 0.5007446],
                ],
            ],
        ],
    ],
    "mha cross": [
        [
            [
                [-0.4314422, -0.4713551, 0.3808499, -0.9609361],
                [-0.4646632, -1.0119692, 0.5643319, -1.0305271],
                [0.3297015, -0.7213975, 1.2431592, -0.5275587],
            ],
            [
                [-0.5996, 0.475154, 0.315506, -0.7165266],
                [-0.5000956, 0.4629505, 0.4751607, -0.5565185],
                [-0.4603748, 0.5170004, 0.4468103, -0.4920821],
            ],
        ],
        [
            [
                [
                    [0.5314689, 0.1777014, 0.0976438, 0.1931859],
                    [0.7883052, 0.0817816, 0.021569, 0.1083442],
                    [0.0320732, 0.1412018, 0.6842689, 0.1424562],
                ],
                [
                    [0.2382541, 0.1311142, 0.4404406, 0.1901911],
                    [0.0278283, 0.2259278, 0.495637, 0.250607],
                    [0.0677893, 0.3600126, 0.2724428, 0.2997553],
                ],
            ],
            [
                [
                    [0.1525956, 0.3138419, 0.1546604, 0.378902],
                    [0.2003361, 0.3038427, 0.2375073, 0.258314],
                    [0.262268, 0.2445942, 0.3115053, 0.1816325],
                ],
                [
                    [0.2282119, 0.2901084, 0.217273, 0.2644067],
                    [0.2432646, 0.2204197, 0.435274, 0.1010417],
                    [0.2724211, 0.2077515, 0.3617902, 0.1580373],
                ],
            ],
        ],
    ],
    "mha key value_dim output_shape": [
        [
            [
                [[-0.7314947, -1.1898189, 0.8727393], [-1.1277063, -0.8995131, 0.4562486]],
                [[-0.6565932, -0.5572791, 0.3888627], [0.0149941, -0.4571696, -0.1757484]],
                [[-0.3067468, -0.4852773, 0.3461031], [-0.3043981, -0.3318216, -0.6721827]],
            ],
            [
                [[0.6909384, -0.7431031, 2.3624837], [-2.682363, -1.3747656, -0.8240223]],
                [[0.8144906, -0.8357994, 2.2863348], [-2.6560018, -1.31907, -0.8625225]],
                [[0.7995436, -0.8951407, 2.1337066], [-2.5733931, -1.2452725, -0.9085947]],
            ],
        ],
        [
            [
                [
                    [0.2908122, 0.3027199, 0.1815275, 0.2249404],
                    [0.2288521, 0.3000899, 0.1631697, 0.3078884],
                    [0.1182509, 0.1213596, 0.4414453, 0.3189441],
                ],
                [
                    [0.5730494, 0.204336, 0.0901249, 0.1324898],
                    [0.0985619, 0.1679883, 0.4622279, 0.2712218],
                    [0.067467, 0.1474528, 0.5158556, 0.2692246],
                ],
            ],
            [
                [
                    [0.2721847, 0.1878377, 0.2929422, 0.2470354],
                    [0.3471226, 0.3259729, 0.1269321, 0.1999724],
                    [0.2843242, 0.26306, 0.2143647, 0.238251],
                ],
                [
                    [0.2246875, 0.4400918, 0.183237, 0.1519836],
                    [0.2149885, 0.2188142, 0.2873687, 0.2788287],
                    [0.2006117, 0.1472704, 0.3171179, 0.335],
                ],
            ],
        ],
    ],
    "mha mask": [
        [
            [
                [-0.9765465, 0.326826, 0.3216659, 2.4809275],
                [-1.2159072, 0.4120057, -0.0184519, 2.8842525],
                [-0.6388401, 0.3152058, 0.2905829, 0.6472794],
            ],
            [
                [0.2837795, -1.0907888, 0.9189464, -1.0350401],
                [0.4011259, -1.3828881, 0.8158358, -1.5277592],
                [0.2065888, -0.7669707, 1.0735273, -0.6696455],
            ],
        ],
        [
            [
                [[0.2974014, 0.385152, 0.0, 0.3174465], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                [[0.6349167, 0.2341378, 0.0, 0.1309454], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
            ],
            [
                [
                    [0.3201479, 0.1706387, 0.2065663, 0.3026471],
                    [0.0, 0.5339906, 0.4660093, 0.0],
                    [0.3420321, 0.0, 0.3098053, 0.3481627],
                ],
                [
                    [0.1944539, 0.4101743, 0.2406232, 0.1547487],
                    [0.0, 0.4881561, 0.5118439, 0.0],
                    [0.3065535, 0.0, 0.2911964, 0.4022501],
                ],
            ],
        ],
    ],
    "mha causal": [
        [
            [
                [0.0618053, -1.1060629, 0.7604428, 1.3671781],
                [0.2333669, -0.0364385, 0.8351607, 1.1353103],
                [0.0448288, 0.2067567, 0.8378208, 1.1766785],
            ],
            [
                [-1.1456654, 2.3403819, -0.4033863, 0.4150486],
                [-0.8557228, 2.032028, -0.600987, 0.6533661],
                [-1.0954913, 1.7108263, 0.034624, 1.2489414],
            ],
        ],
        [
            [
                [[1.0, 0.0, 0.0], [0.4581766, 0.5418234, 0.0], [0.3166112, 0.3147647, 0.3686241]],
                [[1.0, 0.0, 0.0], [0.3722589, 0.627741, 0.0], [0.2727533, 0.3703011, 0.3569456]],
            ],
            [
                [[1.0, 0.0, 0.0], [0.48389, 0.5161101, 0.0], [0.3538912, 0.2768673, 0.3692415]],
                [[1.0, 0.0, 0.0], [0.5053223, 0.4946776, 0.0], [0.2360048, 0.2632506, 0.5007446]],
            ],
        ],
    ],
    "mha causal and 2-D mask": [
        [
            [
                [-1.2159072, 0.4120057, -0.0184519, 2.8842525],
                [-0.3573298, -0.4355509, 0.961834, 1.8785028],
                [-0.6930018, 0.1515355, 0.3836812, 1.2858696],
            ],
            [
                [0.4915619, -0.9370173, 1.3382801, -1.3358166],
                [0.3478577, -1.5275612, 0.8183029, -1.0482801],
                [0.4637926, -1.0597763, 1.0805917, -1.6593808],
            ],
        ],
        [
            [
                [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.494565, 0.0, 0.5054349, 0.0]],
                [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.5892407, 0.0, 0.4107593, 0.0]],
            ],
            [
                [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.52472, 0.0, 0.47528, 0.0]],
                [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.5128457, 0.0, 0.4871543, 0.0]],
            ],
        ],
    ],
    "mha value_mask no bias": [
        [
            [
                [-0.5600286, 0.0900298, 1.0617285, -0.2012313],
                [-0.2257992, -0.9821087, 1.2325096, 0.2226609],
                [-0.1406578, -1.1801683, 1.2578609, 0.0775264],
            ],
            [
                [0.4520132, -0.0555556, 0.3039689, 1.0012372],
                [0.5448737, -0.3505959, 0.5162693, 1.1780173],
                [0.5927974, -0.4618669, 0.5728709, 1.2887326],
            ],
        ],
        [
            [
                [[0.603262, 0.396738, 0.0, 0.0], [0.5770184, 0.4229816, 0.0, 0.0], [0.324156, 0.675844, 0.0, 0.0]],
                [[0.2719685, 0.7280315, 0.0, 0.0], [0.5526646, 0.4473355, 0.0, 0.0], [0.5993661, 0.4006339, 0.0, 0.0]],
            ],
            [
                [
                    [0.312465, 0.3254714, 0.3620636, 0.0],
                    [0.4885356, 0.2462592, 0.2652052, 0.0],
                    [0.400977, 0.2949274, 0.3040956, 0.0],
                ],
                [
                    [0.5786704, 0.1552692, 0.2660604, 0.0],
                    [0.357399, 0.313479, 0.3291219, 0.0],
                    [0.2756318, 0.3875788, 0.3367894, 0.0],
                ],
            ],
        ],
    ],
    "mha gate and sliding_window": [
        [
            [
                [-0.5150204, 0.5126017, -0.6435146, 0.6038808],
                [-0.3433215, -0.091937, -0.5903556, 0.1956684],
                [-0.2653628, 0.0902476, -0.6562771, 0.0106204],
            ],
            [
                [-0.3402748, -0.1759562, -0.4236633, -0.1192288],
                [-0.1212438, -0.3187574, -0.5638599, -0.4014893],
                [0.0679644, -0.2988811, -0.6843391, -0.603759],
            ],
        ],
        [
            [
                [[0.5393004, 0.4606996, 0.0], [0.2906832, 0.3437517, 0.365565], [0.0, 0.4605939, 0.5394061]],
                [[0.2057109, 0.7942891, 0.0], [0.2337325, 0.3941436, 0.3721238], [0.0, 0.5091822, 0.4908178]],
            ],
            [
                [[0.4993996, 0.5006004, 0.0], [0.3227401, 0.34423, 0.3330299], [0.0, 0.4285149, 0.571485]],
                [[0.4880995, 0.5119005, 0.0], [0.3677238, 0.3599777, 0.2722985], [0.0, 0.344571, 0.655429]],
            ],
        ],
    ],
    "mha rank 4": [
        [
            [
                [
                    [-0.2045452, -0.1196963, 0.9597961, 1.0528901],
                    [-0.0224704, 0.0857863, 0.7493756, 1.3591658],
                    [-0.3494868, -0.7297044, 1.2369056, 0.5190741],
                ],
                [
                    [-0.2306503, -0.5665449, 1.1058308, 0.7876247],
                    [-0.2339001, -0.3992406, 1.068367, 0.8492911],
                    [-0.1574145, -0.3344676, 0.9882268, 0.9702232],
                ],
            ],
            [
                [
                    [-0.6202788, 0.1506947, -0.4533279, 1.0911119],
                    [-0.4083964, 0.1648175, -0.1981163, 1.0376909],
                    [-0.4614368, 0.1867237, -0.0771596, 1.4280978],
                ],
                [
                    [-0.4958095, -0.0112588, 0.3594953, 1.6556274],
                    [-0.5751253, -0.0228772, 0.1640394, 1.6436765],
                    [-0.3128411, 0.0682875, 0.5401672, 1.7320886],
                ],
            ],
        ],
        [
            [
                [
                    [
                        [[0.291271, 0.3651105], [0.2177703, 0.1258482]],
                        [[0.1807818, 0.2056561], [0.2882742, 0.3252878]],
                        [[0.5510951, 0.1699641], [0.0971356, 0.1818051]],
                    ],
                    [
                        [[0.4340988, 0.2036301], [0.1442014, 0.2180697]],
                        [[0.393721, 0.2545963], [0.1679862, 0.1836965]],
                        [[0.3439739, 0.1976938], [0.1818895, 0.2764427]],
                    ],
                ],
                [
                    [
                        [[0.0974159, 0.2027595], [0.205977, 0.4938476]],
                        [[0.1283861, 0.2210731], [0.2250008, 0.4255401]],
                        [[0.1900278, 0.2414691], [0.297021, 0.2714821]],
                    ],
                    [
                        [[0.2233104, 0.2451533], [0.3010694, 0.2304668]],
                        [[0.1638504, 0.2358967], [0.2581849, 0.342068]],
                        [[0.175255, 0.2390583], [0.2727101, 0.3129766]],
                    ],
                ],
            ],
            [
                [
                    [
                        [[0.2384533, 0.067685], [0.3795449, 0.3143167]],
                        [[0.2943994, 0.1400559], [0.3371687, 0.2283762]],
                        [[0.2854386, 0.2764596], [0.2505957, 0.1875061]],
                    ],
                    [
                        [[0.1967887, 0.3829901], [0.1740456, 0.2461757]],
                        [[0.1913533, 0.3247714], [0.1889068, 0.2949686]],
                        [[0.2598543, 0.4946407], [0.1525817, 0.0929232]],
                    ],
                ],
                [
                    [
                        [[0.6026751, 0.1549216], [0.1587945, 0.0836088]],
                        [[0.0522674, 0.517481], [0.1489021, 0.2813495]],
                        [[0.5143629, 0.1518471], [0.2055712, 0.1282188]],
                    ],
                    [
                        [[0.6573262, 0.0882642], [0.1709307, 0.0834789]],
                        [[0.8659736, 0.0250079], [0.0846587, 0.0243598]],
                        [[0.2839381, 0.290391], [0.2222346, 0.2034362]],
                    ],
                ],
            ],
        ],
    ],
    "mha rank 4 axis 2": [
        [
            [
                [
                    [-0.3487437, -1.1595781, 2.1595652],
                    [-0.2486379, -1.189803, 2.1850858],
                    [-0.0892939, -1.6295013, 2.7559767],
                ],
                [
                    [0.5977008, 0.9062467, 0.4570786],
                    [0.5516584, 0.7944202, 0.2377828],
                    [0.5631545, 0.7750031, 0.3605157],
                ],
            ],
            [
                [
                    [1.8536125, 0.5867599, -0.1770727],
                    [1.8425094, 0.5708001, 0.041104],
                    [1.5039481, 0.3224109, 0.3159593],
                ],
                [
                    [0.3100201, -0.998675, 1.910091],
                    [0.4638013, -0.998319, 1.8812835],
                    [0.1367585, -0.9486743, 1.8657947],
                ],
            ],
        ],
        [
            [
                [
                    [[0.4437526, 0.5562474], [0.4678159, 0.5321841], [0.7642855, 0.2357145]],
                    [[0.3245298, 0.6754701], [0.367385, 0.632615], [0.4403921, 0.5596079]],
                ],
                [
                    [[0.3980483, 0.6019517], [0.4776641, 0.5223359], [0.3968508, 0.6031492]],
                    [[0.5664137, 0.4335864], [0.4301268, 0.5698732], [0.4656246, 0.5343755]],
                ],
            ],
            [
                [
                    [[0.7789071, 0.2210929], [0.6776288, 0.3223712], [0.5079899, 0.4920101]],
                    [[0.7955092, 0.2044908], [0.0917377, 0.9082623], [0.7720732, 0.2279268]],
                ],
                [
                    [[0.414176, 0.585824], [0.3904037, 0.6095963], [0.6215017, 0.3784983]],
                    [[0.671872, 0.328128], [0.7765536, 0.2234464], [0.5220809, 0.4779191]],
                ],
            ],
        ],
    ],
    "dot": [
        [
            [
                [1.5834303, -1.1491401, 0.3284542, -1.0722288],
                [-0.4419442, -0.4305204, 0.1106975, -0.8486646],
                [-1.4267437, -0.4443652, 0.2244976, -0.6668558],
            ],
            [
                [0.6155494, -0.4323153, -0.8887051, -0.9775066],
                [1.3223066, -0.0566056, 0.0368585, 0.2808008],
                [0.908136, 0.5551077, -0.3071296, -0.3574216],
            ],
        ],
        [
            [
                [9.66e-05, 6.01e-05, 0.9639173, 0.0359261],
                [0.1272059, 0.4003444, 0.0894125, 0.3830372],
                [0.0928698, 0.7053427, 0.0032307, 0.1985568],
            ],
            [
                [0.0083504, 0.3383211, 0.2938615, 0.3594669],
                [0.5223275, 0.1273819, 0.2799553, 0.0703352],
                [0.4525369, 0.058143, 0.0146948, 0.4746253],
            ],
        ],
    ],
    "dot scale key masks": [
        [
            [
                [0.4009067, -0.1623349, 0.8382757, 0.2978746, 0.1622567],
                [0.0, 0.0, 0.0, 0.0, 0.0],
                [0.4474506, -0.2183761, 0.7508236, 0.3431227, 0.1946137],
            ],
            [
                [0.4647555, -0.8769761, -0.2127474, -0.9534643, 0.6766911],
                [0.450968, -0.8648863, -0.2076943, -0.9837642, 0.6758754],
                [0.4823971, -0.9134549, -0.211138, -0.9166609, 0.6799809],
            ],
        ],
        [
            [[0.5074509, 0.492549, 0.0, 0.0], [0.4819888, 0.5180112, 0.0, 0.0], [0.4681785, 0.5318214, 0.0, 0.0]],
            [
                [0.0, 0.3338897, 0.3309456, 0.3351647],
                [0.0, 0.331774, 0.3486109, 0.3196151],
                [0.0, 0.3269825, 0.2998977, 0.3731198],
            ],
        ],
    ],
    "concat causal": [
        [
            [
                [-2.0341673, -0.9144945, 0.70958, 1.156401],
                [-2.0935783, -0.7147014, 0.5265276, 0.3093507],
                [-0.8321025, -0.879284, 0.4690103, -0.1491197],
            ],
            [
                [1.6818255, 0.7527786, 0.7535638, 1.1378813],
                [1.093659, 0.1383833, 0.0677641, 0.2824743],
                [1.1747793, -0.3671273, -0.1461203, 0.0859492],
            ],
        ],
        [
            [[1.0, 0.0, 0.0, 0.0], [0.5202525, 0.4797474, 0.0, 0.0], [0.3457275, 0.3119919, 0.3422806, 0.0]],
            [[1.0, 0.0, 0.0, 0.0], [0.5586321, 0.4413679, 0.0, 0.0], [0.3799495, 0.3073368, 0.3127137, 0.0]],
        ],
    ],
    "concat scale value_mask": [
        [
            [
                [0.4120353, -0.1757343, 0.8173661, 0.3086934, 0.1699933],
                [0.4120105, -0.1757044, 0.8174129, 0.3086692, 0.169976],
                [0.4120241, -0.1757208, 0.8173871, 0.3086825, 0.1699854],
            ],
            [
                [0.4635654, -0.876133, -0.2122341, -0.9560985, 0.6766421],
                [0.4635592, -0.87614, -0.2122271, -0.9561135, 0.6766431],
                [0.463558, -0.876147, -0.2122236, -0.9561167, 0.6766438],
            ],
        ],
        [
            [[0.498061, 0.501939, 0.0, 0.0], [0.498082, 0.501918, 0.0, 0.0], [0.4980704, 0.5019295, 0.0, 0.0]],
            [
                [0.0, 0.3336154, 0.3323898, 0.3339948],
                [0.0, 0.3336087, 0.3323928, 0.3339985],
                [0.0, 0.3336048, 0.3323911, 0.3340041],
            ],
        ],
    ],
    "additive": [
        [
            [
                [-0.1413474, 0.1695734, -0.1199278, 0.3115842, -0.4090002],
                [-0.1995764, 0.1782079, -0.1378256, 0.2946971, -0.4446191],
                [-0.139631, 0.1750173, -0.1352693, 0.315431, -0.4130325],
            ],
            [
                [0.317302, -0.6101599, 0.2848887, -0.4638532, 0.528149],
                [0.3077487, -0.5819179, 0.2884367, -0.4705972, 0.523524],
                [0.2892971, -0.5693089, 0.3475887, -0.4291888, 0.5099567],
            ],
        ],
        [
            [
                [0.2794184, 0.243934, 0.2616765, 0.2149711],
                [0.2593991, 0.2324062, 0.2629862, 0.2452085],
                [0.2795766, 0.2410533, 0.2668895, 0.2124806],
            ],
            [
                [0.3052163, 0.2314279, 0.2486742, 0.2146816],
                [0.3099391, 0.2368434, 0.2638471, 0.1893704],
                [0.3413044, 0.2177067, 0.2525036, 0.1884852],
            ],
        ],
    ],
    "additive no scale masks causal": [
        [
            [
                [-2.0341673, -0.9144945, 0.70958, 1.156401],
                [0.0, 0.0, 0.0, 0.0],
                [-2.0544009, -0.8464511, 0.647238, 0.8679218],
            ],
            [
                [0.9064358, -0.192875, -0.473036, -0.428394],
                [0.3492266, -0.6392466, -0.8002412, -0.8002],
                [0.9296164, -1.106093, -0.6843324, -0.5278952],
            ],
        ],
        [
            [[1.0, 0.0, 0.0, 0.0], [0.7840356, 0.2159645, 0.0, 0.0], [0.8366128, 0.1633871, 0.0, 0.0]],
            [[0.25, 0.25, 0.25, 0.25], [0.0, 1.0, 0.0, 0.0], [0.0, 0.4314619, 0.5685382, 0.0]],
        ],
    ],
}


@pytest.mark.parametrize("name", MHA_CASES)
def test_multi_head_attention_gives_keras_3s_outputs_and_scores(name):
    output, scores = run(*mha_case(name))
    expected_output, expected_scores = KERAS_3[f"mha {name}"]
    np.testing.assert_allclose(output.numpy(), expected_output, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(scores.numpy(), expected_scores, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", LUONG_CASES)
def test_attention_and_additive_attention_give_keras_3s_outputs_and_scores(name):
    output, scores = run(*luong_case(name))
    expected_output, expected_scores = KERAS_3[name]
    np.testing.assert_allclose(output.numpy(), expected_output, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(scores.numpy(), expected_scores, rtol=1e-5, atol=1e-6)


# ---- weights -------------------------------------------------------------------------------------------------
def test_multi_head_attention_weights_have_keras_3s_names_shapes_and_order():
    layer = layers.MultiHeadAttention(2, 3)
    q, v = inputs(0, (2, 4, 5), (2, 6, 7))
    layer(q, v)
    # Keras 3.15's layer.weights: path and shape
    assert [(w.name, tuple(w.shape)) for w in layer.weights] == [
        ("multi_head_attention/query/kernel:0", (5, 2, 3)),
        ("multi_head_attention/query/bias:0", (2, 3)),
        ("multi_head_attention/key/kernel:0", (7, 2, 3)),
        ("multi_head_attention/key/bias:0", (2, 3)),
        ("multi_head_attention/value/kernel:0", (7, 2, 3)),
        ("multi_head_attention/value/bias:0", (2, 3)),
        ("multi_head_attention/attention_output/kernel:0", (2, 3, 5)),
        ("multi_head_attention/attention_output/bias:0", (5,)),
    ]
    assert layer.count_params() == 5 * 6 + 6 + 2 * (7 * 6 + 6) + 6 * 5 + 5
    # Keras 3 makes its sublayers in this order; the Softmax and the Dropout take the next free names
    assert [sub.name for sub in layer.layers] == ["query", "key", "value", "softmax", "dropout", "attention_output"]
    assert (layers.Dropout(0.1).name, layers.Softmax().name) == ("dropout_1", "softmax_1")  # as in Keras 3

    gated = layers.MultiHeadAttention(2, 3, use_gate=True, value_dim=4, output_shape=(2, 3), use_bias=False)
    gated(q, q)
    assert [(w.name.split("/", 1)[1], tuple(w.shape)) for w in gated.weights] == [  # Keras 3.15's, less the biases
        ("query/kernel:0", (5, 2, 3)),
        ("key/kernel:0", (5, 2, 3)),
        ("gate/kernel:0", (5, 2, 4)),
        ("value/kernel:0", (5, 2, 4)),
        ("attention_output/kernel:0", (2, 4, 2, 3)),
    ]


def test_set_weights_round_trips_and_a_manual_build_takes_keras_3s_shapes():
    layer = layers.MultiHeadAttention(2, 2, value_dim=3)
    layer.build((None, 3, 4), (None, 5, 6))  # query shape, value shape (key shape = value shape), as in Keras 3
    assert layer.built and [tuple(w.shape) for w in layer.weights][::2] == [(4, 2, 2), (6, 2, 2), (6, 2, 3), (2, 3, 4)]
    set_seeded_weights(layer, seed=5)
    given = [w.numpy() for w in layer.weights]
    q, v = inputs(0, (2, 3, 4), (2, 5, 6))
    first = layer(q, v).numpy()  # the first call keeps the weights the manual build made
    copy = layers.MultiHeadAttention(2, 2, value_dim=3)
    copy(q, v)
    copy.set_weights(layer.get_weights())
    np.testing.assert_array_equal(copy(q, v).numpy(), first)
    for mine, theirs in zip(layer.get_weights(), given):
        np.testing.assert_array_equal(mine, theirs)


def test_default_initial_weights_are_glorot_uniform_over_the_projections_fans_and_zero_biases():
    layer = layers.MultiHeadAttention(4, 8)
    x = inputs(0, (1, 2, 16))[0]
    layer(x, x)
    kernel, bias = layer.query_dense.kernel.numpy(), layer.query_dense.bias.numpy()
    limit = np.sqrt(6 / (16 + 4 * 8))  # fan_in 16, fan_out heads * key_dim: Keras 3's EinsumDense fans
    assert kernel.shape == (16, 4, 8) and np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.9 * limit
    assert not bias.any()


def test_attention_layers_weights_are_keras_3s():
    q, v = inputs(0, (2, 3, 5), (2, 4, 5))
    plain, scaled, concat, additive = (
        layers.Attention(),
        layers.Attention(use_scale=True),
        layers.Attention(use_scale=True, score_mode="concat"),
        layers.AdditiveAttention(),
    )
    for layer in (plain, scaled, concat, additive):
        layer([q, v])
    assert plain.weights == []
    assert [(w.name, tuple(w.shape)) for w in scaled.weights] == [("attention_1/scale:0", ())]
    assert [(w.name, tuple(w.shape)) for w in concat.weights] == [
        ("attention_2/scale:0", ()),
        ("attention_2/concat_score_weight:0", ()),
    ]
    assert [(w.name, tuple(w.shape)) for w in additive.weights] == [("additive_attention/scale:0", (5,))]
    assert scaled.scale.numpy() == 1.0 and concat.concat_score_weight.numpy() == 1.0  # Keras 3 starts them at 1
    assert layers.AdditiveAttention(use_scale=False).get_config()["use_scale"] is False


def test_configs_round_trip_and_output_shapes_are_computed_as_keras_3_does():
    layer = layers.MultiHeadAttention(2, 3, value_dim=4, dropout=0.1, output_shape=6, seed=1, name="mha")
    config = layer.get_config()
    assert {k: config[k] for k in ("num_heads", "key_dim", "value_dim", "dropout", "output_shape", "seed")} == {
        "num_heads": 2,
        "key_dim": 3,
        "value_dim": 4,
        "dropout": 0.1,
        "output_shape": (6,),
        "seed": 1,
    }
    copy = layers.MultiHeadAttention.from_config(config)
    assert copy.get_config() == config
    assert layer.compute_output_shape((None, 4, 5), (None, 6, 7)) == (None, 4, 6)
    # Keras 3.15 printed these three
    assert layers.MultiHeadAttention(2, 3).compute_output_shape((None, 4, 5), (None, 6, 7)) == (None, 4, 5)
    assert layers.MultiHeadAttention(2, 3, output_shape=(2, 3)).compute_output_shape((None, 4, 5), (None, 6, 7)) == (
        None,
        4,
        2,
        3,
    )
    assert layers.Attention().compute_output_shape([(None, 4, 5), (None, 6, 7)]) == (None, 4, 7)
    x = inputs(0, (1, 3, 4))[0]
    layer(x, x)
    assert layer.get_config()["attention_axes"] == (1,)  # after building, as Keras 3 shows the axes it uses
    for made in (layers.Attention(use_scale=True, score_mode="concat", dropout=0.2), layers.AdditiveAttention()):
        assert type(made).from_config(made.get_config()).get_config() == made.get_config()
    assert "score_mode" not in layers.AdditiveAttention().get_config()


# ---- masks ---------------------------------------------------------------------------------------------------
def test_masked_positions_get_no_attention_and_a_query_with_nothing_to_attend_to_gets_zeros():
    layer, (q, v), kwargs = mha_case("mask")
    output, scores = run(layer, (q, v), kwargs)
    scores = scores.numpy()
    assert np.all(scores[:, :, ~MASK[0]][0] == 0) and np.all(scores[1][:, ~MASK[1]] == 0)
    np.testing.assert_allclose(scores[1].sum(-1), 1, rtol=1e-6)
    # query position 2 of example 0 may attend to nothing: its probabilities are all 0 (as Keras 3's Softmax layer
    # makes them, and as Keras 3 returns them), so the heads give zeros and the output is the output bias
    np.testing.assert_array_equal(scores[0, :, 2], 0)
    np.testing.assert_allclose(output.numpy()[0, 2], layer.output_dense.bias.numpy(), rtol=1e-6)
    # a mask of 0s and 1s, and one per head (batch, heads, T, S), are read as the bool mask
    same = layer(q, v, attention_mask=MASK.astype("int32")).numpy()
    per_head = layer(q, v, attention_mask=np.repeat(MASK[:, None], 2, axis=1)).numpy()
    np.testing.assert_array_equal(same, output.numpy())
    np.testing.assert_array_equal(per_head, output.numpy())


def test_use_causal_mask_hides_later_positions_and_joins_a_given_mask():
    layer = layers.MultiHeadAttention(2, 2)
    x = inputs(4, (2, 4, 3))[0]
    _, scores = layer(x, x, use_causal_mask=True, return_attention_scores=True)
    later = np.triu(np.ones((4, 4), bool), 1)
    assert np.all(scores.numpy()[..., later] == 0) and np.all(scores.numpy()[..., ~later] > 0)
    # changing a later position changes nothing before it
    moved = x.copy()
    moved[:, 3] += 1.0
    np.testing.assert_allclose(
        layer(moved, moved, use_causal_mask=True).numpy()[:, :3], layer(x, x, use_causal_mask=True).numpy()[:, :3]
    )
    first_only = np.zeros((4, 4), bool)
    first_only[:, 0] = True
    _, joined = layer(x, x, use_causal_mask=True, attention_mask=first_only, return_attention_scores=True)
    np.testing.assert_array_equal(joined.numpy()[..., 0], 1)


# ---- gradients -----------------------------------------------------------------------------------------------
def check_weight_gradients(loss, variables, eps: float = 1e-6) -> None:
    """The tape's gradient of `loss()` w.r.t. every variable, along a random direction, against central
    differences (float64 variables); every variable must get a gradient."""
    with mt.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, variables)
    assert all(g is not None for g in grads)
    rng = np.random.default_rng(0)
    directions = [rng.normal(size=tuple(v.shape)) for v in variables]
    analytic = sum(float(np.sum(g.numpy() * d)) for g, d in zip(grads, directions))
    start = [v.numpy() for v in variables]

    def moved(step: float) -> float:
        for v, s, d in zip(variables, start, directions):
            v.assign(s + step * d)
        return float(loss())

    numeric = (moved(eps) - moved(-eps)) / (2 * eps)
    for v, s in zip(variables, start):
        v.assign(s)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6)


def test_multi_head_attention_gradients_match_finite_differences():
    rng = np.random.default_rng(6)
    q, v, k = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 5)), rng.normal(size=(2, 4, 3))
    layer = layers.MultiHeadAttention(2, 3, value_dim=2, use_gate=True, dtype="float64")
    layer(q, v, k)
    set_seeded_weights(layer, seed=1)
    mask = MASK[1]

    check_gradients(lambda a, b, c: layer(a, b, c, attention_mask=mask, return_attention_scores=True), [q, v, k])
    own = layers.MultiHeadAttention(2, 3, dtype="float64")
    check_gradients(lambda a: own(a, a, use_causal_mask=True), [q])
    weights = rng.normal(size=(2, 3, 4))
    check_weight_gradients(
        lambda: mt.reduce_sum(layer(q, v, k, attention_mask=mask) * weights), layer.trainable_variables
    )
    deep = layers.MultiHeadAttention(2, 2, attention_axes=(1, 2), dtype="float64")  # softmax over two axes
    check_gradients(lambda a, b: deep(a, b), [rng.normal(size=(1, 2, 3, 4)), rng.normal(size=(1, 2, 2, 4))])


@pytest.mark.parametrize("name", LUONG_CASES)
def test_attention_gradients_match_finite_differences(name):
    layer, given, kwargs = luong_case(name)
    layer = type(layer).from_config({**layer.get_config(), "dtype": "float64"})
    if kwargs.get("mask") is not None:  # each query step may see key step 0: a row with nothing to attend to has
        # its scores all lowered by 1e9, and float64 resolves those only to ~1e-7, too coarse for finite differences
        kwargs = {**kwargs, "mask": [kwargs["mask"][0], np.array([[1, 1, 0, 0], [1, 0, 1, 1]], bool)]}
    given = [x.astype(np.float64) for x in given]
    layer(given, **kwargs)
    set_seeded_weights(layer, seed=2)
    check_gradients(lambda *xs: layer(list(xs), return_attention_scores=True, **kwargs), given)
    if layer.trainable_variables:
        weights = np.random.default_rng(1).normal(size=(2, 3, given[1].shape[-1]))
        check_weight_gradients(lambda: mt.reduce_sum(layer(given, **kwargs) * weights), layer.trainable_variables)


# ---- dropout -------------------------------------------------------------------------------------------------
def test_multi_head_attention_dropout_acts_while_training_on_the_probabilities_only():
    x = inputs(7, (2, 4, 3))[0]
    layer = layers.MultiHeadAttention(2, 2, dropout=0.5, seed=3)
    plain = layers.MultiHeadAttention(2, 2)
    layer(x, x)
    plain(x, x)
    set_seeded_weights(layer)
    set_seeded_weights(plain)
    inference, scores = layer(x, x, return_attention_scores=True)
    np.testing.assert_array_equal(inference.numpy(), plain(x, x).numpy())
    trained, trained_scores = layer(x, x, return_attention_scores=True, training=True)
    assert not np.allclose(trained.numpy(), inference.numpy())
    np.testing.assert_array_equal(trained_scores.numpy(), scores.numpy())  # returned before dropout, as Keras 3
    # dropout scales what it keeps by 1 / (1 - rate): on average the training output is the inference output
    samples = np.array([layer(x, x, training=True).numpy() for _ in range(400)])
    standard_error = samples.std(axis=0) / np.sqrt(len(samples))
    assert np.all(np.abs(samples.mean(axis=0) - inference.numpy()) < 5 * standard_error + 1e-6)


def test_attention_dropout_zeroes_probabilities_and_returns_them_dropped_as_keras_3_does():
    q, v = inputs(8, (2, 3, 4), (2, 5, 4))
    layer = layers.Attention(dropout=0.5, seed=0)
    _, inference = layer([q, v], return_attention_scores=True)
    _, dropped = layer([q, v], return_attention_scores=True, training=True)
    dropped, inference = dropped.numpy(), inference.numpy()
    kept = dropped != 0
    assert 0.2 < kept.mean() < 0.8
    np.testing.assert_allclose(dropped[kept], 2 * inference[kept], rtol=1e-6)
    output = layer([q, v], training=False).numpy()
    np.testing.assert_allclose(output, inference @ v, rtol=1e-5, atol=1e-6)


# ---- in models -----------------------------------------------------------------------------------------------
def test_functional_model_summary_and_predictions():
    x = keras.Input((5, 8))
    y = layers.MultiHeadAttention(2, 4)(x, x)
    z = layers.LayerNormalization()(layers.Add()([x, y]))
    a, s = layers.MultiHeadAttention(1, 3)(z, x, return_attention_scores=True)
    c = layers.Attention()([a, x])
    d = layers.AdditiveAttention()([c, x])
    model = keras.Model(x, [d, s])
    assert d.shape == (None, 5, 8) and s.shape == (None, 1, 5, 5)
    text = _summary(model)
    # Keras 3.15's summary of the same model: 288, 16, 113, 0 and 8 parameters, 425 in all
    for row in ("multi_head_attention (Multi", "(None, 5, 8)", "288", "113", "additive_attention (Additiv"):
        assert row in text
    assert "Total params: 425" in text
    data = inputs(9, (3, 5, 8))[0]
    out, scores = model.predict(data, verbose=0)
    np.testing.assert_allclose(out, model(data)[0].numpy(), rtol=1e-6)
    assert out.shape == (3, 5, 8) and scores.shape == (3, 1, 5, 5)
    np.testing.assert_allclose(scores.sum(-1), 1, rtol=1e-5)

    steps = keras.Input((None, 8))  # any length
    decoded = layers.MultiHeadAttention(2, 4)(steps, steps, use_causal_mask=True)
    assert decoded.shape == (None, None, 8)
    assert keras.Model(steps, decoded)(inputs(1, (2, 7, 8))[0]).shape == (2, 7, 8)


def _summary(model) -> str:
    lines = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def attention_model():
    x = keras.Input((3, 4))
    y = layers.MultiHeadAttention(2, 2)(x, x)
    y = layers.Attention(use_scale=True, score_mode="concat")([y, x])
    return keras.Model(x, layers.AdditiveAttention()([y, x]))


def test_weights_file_has_keras_3s_layout_and_the_model_keras_3s_predictions(tmp_path):
    h5py = pytest.importorskip("h5py")
    model = attention_model()
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=tuple(w.shape)).astype("float32") for w in model.weights])
    data = rng.normal(size=(1, 3, 4)).astype("float32")
    # Keras 3.15's prediction for the same code (model.weights in the same order), rounded to 6 decimals
    expected = [[0.322013, 1.333528, -0.563134, 0.803199], [0.321254, 1.333532, -0.562336, 0.8002], [0.320486]]
    expected[2] += [1.333541, -0.56154, 0.797187]
    np.testing.assert_allclose(model.predict(data, verbose=0)[0], expected, atol=2e-6)

    model.save_weights(tmp_path / "attention.weights.h5")
    datasets, groups = {}, set()
    with h5py.File(tmp_path / "attention.weights.h5", "r") as file:
        file.visititems(
            lambda name, item: datasets.__setitem__(name, item.shape) if isinstance(item, h5py.Dataset) else None
        )
        file.visit(groups.add)
    # the datasets of the file Keras 3.15 wrote for this model (the sublayers found through its properties
    # query_dense, ..., output_dense), and its groups of weightless layers
    mha = "layers/multi_head_attention"
    assert datasets == {
        "layers/additive_attention/vars/0": (4,),
        "layers/attention/vars/0": (),
        "layers/attention/vars/1": (),
        f"{mha}/key_dense/vars/0": (4, 2, 2),
        f"{mha}/key_dense/vars/1": (2, 2),
        f"{mha}/output_dense/vars/0": (2, 2, 4),
        f"{mha}/output_dense/vars/1": (4,),
        f"{mha}/query_dense/vars/0": (4, 2, 2),
        f"{mha}/query_dense/vars/1": (2, 2),
        f"{mha}/value_dense/vars/0": (4, 2, 2),
        f"{mha}/value_dense/vars/1": (2, 2),
    }
    assert {f"{mha}/_dropout_layer/vars", f"{mha}/_softmax/vars", "layers/input_layer/vars"} <= groups

    fresh = attention_model()
    fresh.load_weights(tmp_path / "attention.weights.h5")
    np.testing.assert_array_equal(fresh.predict(data, verbose=0), model.predict(data, verbose=0))


def test_a_small_transformer_block_learns_to_reverse_sequences():
    """Each output position must name the token at the mirrored input position: a Dense layer sees one position
    at a time and cannot do it; self-attention lets position i fetch position steps - 1 - i."""
    steps, vocab = 5, 4
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, vocab, (256, steps))
    positions = np.broadcast_to(np.eye(steps), (256, steps, steps))  # each step knows where it is
    x = np.concatenate([np.eye(vocab)[tokens], positions], axis=-1).astype("float32")
    y = tokens[:, ::-1]

    def model(attention: bool):
        inputs = keras.Input((steps, vocab + steps))
        h = layers.Dense(16)(inputs)
        if attention:  # the transformer block: attention, residual connection, layer normalization
            h = layers.LayerNormalization()(layers.Add()([h, layers.MultiHeadAttention(2, 8)(h, h)]))
        built = keras.Model(inputs, layers.Dense(vocab, activation="softmax")(layers.Dense(16, "relu")(h)))
        built.compile(keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
        return built

    history = model(True).fit(x, y, epochs=10, batch_size=32, verbose=0).history
    assert history["loss"][-1] < 0.1 * history["loss"][0] and history["accuracy"][-1] > 0.95
    without = model(False).fit(x, y, epochs=6, batch_size=32, verbose=0).history
    # at best the middle position right and chance (1/4) elsewhere: accuracy 0.4, loss about 0.8 * log(4) = 1.11
    assert without["loss"][-1] > 1.0 and without["accuracy"][-1] < 0.5


# ---- errors --------------------------------------------------------------------------------------------------
def test_multi_head_attention_arguments_are_checked():
    for kwargs, text in (
        ({"num_heads": 0, "key_dim": 2}, "num_heads must be a positive integer, got 0"),
        ({"num_heads": 2, "key_dim": 2.5}, "key_dim must be a positive integer, got 2.5"),
        ({"num_heads": 2, "key_dim": 2, "value_dim": -1}, "value_dim must be a positive integer, got -1"),
        ({"num_heads": 2, "key_dim": 2, "dropout": 1.0}, r"dropout must be in \[0, 1\), got 1.0"),
        ({"num_heads": 2, "key_dim": 2, "sliding_window": 0}, "sliding_window must be None or an int > 0, got 0"),
        ({"num_heads": 2, "key_dim": 2, "attention_axes": "1"}, "attention_axes must be an int, list or tuple"),
    ):
        with pytest.raises(ValueError, match=text):
            layers.MultiHeadAttention(**kwargs)
    with pytest.raises(NotImplementedError, match="flash_attention=True.*leave flash_attention out"):
        layers.MultiHeadAttention(2, 2, flash_attention=True)
    with pytest.raises(AttributeError, match="no tf.keras.layers.GroupQueryAttention: use MultiHeadAttention"):
        layers.GroupQueryAttention(4, 2, 2)


def test_multi_head_attention_input_errors_say_what_is_wrong():
    layer = layers.MultiHeadAttention(2, 2)
    q, v, k = inputs(0, (2, 3, 4), (2, 5, 6), (2, 5, 3))
    with pytest.raises(TypeError, match=r"called on a query and a value: layer\(query, value\).*layer\(x, x\)"):
        layer(q)
    with pytest.raises(
        ValueError, match=r'Input 0 \(query\) of layer "multi_head_attention".*rank >= 3.*\(3, 4\).*x\[None\]'
    ):
        layer(q[0], q[0])
    with pytest.raises(ValueError, match=r"Input 1 \(value\).*expected an input of rank 3, as the query's \(2, 3, 4\)"):
        layer(q, v[0])
    with pytest.raises(
        ValueError, match=r"all dimensions of value and key, except the last one, must be equal.*\(2, 4, 3\)"
    ):
        layer(q, v, k[:, :4])
    with pytest.raises(ValueError, match=r"query \(1, 3, 4\) and the value \(2, 5, 6\) must agree on every axis but"):
        layer(q[:1], v)
    assert not layer.built  # nothing was built from inputs it refused
    layer(q, v, k)
    with pytest.raises(ValueError, match=r"Input 2 \(key\).*with 3 features on its last axis \(the layer was built"):
        layer(q, v, v)
    with pytest.raises(ValueError, match=r"Input 0 \(query\).*with 4 features"):
        layer(v, v, k)
    with pytest.raises(ValueError, match=r"Input 0 \(query\).*rank 3"):
        layer(q[:, None], v[:, None], k[:, None])
    with pytest.raises(
        ValueError,
        match=r"attention_mask of shape \(2, 5\) does not fit the attention scores of shape \(2, 2, 3, 5\) \(batch, "
        r"heads, query positions, key positions\): give it shape \(2, 3, 5\), or \(3, 5\) for every example",
    ):
        layer(q, v, k, attention_mask=np.ones((2, 5), bool))
    with pytest.raises(ValueError, match=r"attention_mask of shape \(2, 3, 4\) does not fit"):
        layer(q, v, k, attention_mask=np.ones((2, 3, 4), bool))
    with pytest.raises(
        ValueError, match=r"value_mask must have shape \(batch, key positions\) = \(2, 5\).*got shape \(2, 3\)"
    ):
        layer(q, v, k, value_mask=np.ones((2, 3), bool))
    with pytest.raises(
        NotImplementedError, match="query_mask is not taken.*pass attention_mask with False on their rows"
    ):
        layer(q, v, k, query_mask=np.ones((2, 3), bool))


def test_attention_axes_and_masks_that_need_one_sequence_axis_are_refused_clearly():
    x = inputs(0, (1, 2, 3, 4))[0]
    with pytest.raises(
        ValueError, match=r"attention_axes=\(3,\) must name distinct axes .* axes 1 to 2 \(or -3 to -2\)"
    ):
        layers.MultiHeadAttention(2, 2, attention_axes=3)(x, x)
    with pytest.raises(
        NotImplementedError, match=r"use_causal_mask needs one attention axis .* axes \(1, 2\); pass attention_mask"
    ):
        layers.MultiHeadAttention(2, 2)(x, x, use_causal_mask=True)
    along = layers.MultiHeadAttention(2, 2, attention_axes=-2)  # the steps of each of the 2 rows
    _, scores = along(x, x, use_causal_mask=True, return_attention_scores=True)
    assert scores.shape == (1, 2, 2, 3, 3) and np.all(scores.numpy()[..., np.triu(np.ones((3, 3), bool), 1)] == 0)


def test_attention_input_errors_say_what_is_wrong():
    q, v, k = inputs(0, (2, 3, 4), (2, 5, 6), (2, 5, 4))
    layer = layers.Attention()
    with pytest.raises(
        ValueError,
        match=r"must be called on a list of inputs, namely \[query, value\].*got one "
        r"ndarray.*layer\(\[x, x\]\)",
    ):
        layer(q)
    with pytest.raises(ValueError, match="got a list of 4"):
        layer([q, v, k, k])
    with pytest.raises(
        ValueError,
        match=r"Input 1 \(value\) of layer \"attention\" \(Attention\).*a 3-D input "
        r"\(batch, steps, features\), but received an input of shape \(5, 6\)",
    ):
        layer([q, v[0]])
    with pytest.raises(
        ValueError, match=r"Input 1 \(value\).*as many features as the query has \(4\).*MultiHeadAttention"
    ):
        layer([q, v])
    with pytest.raises(ValueError, match=r"Input 2 \(key\).*as many steps as the value has \(5\)"):
        layer([q, v, k[:, :4]])
    with pytest.raises(ValueError, match=r"same batch size, got \[\(2, 3, 4\), \(1, 5, 6\), \(2, 5, 4\)\]"):
        layer([q, v[:1], k])
    with pytest.raises(ValueError, match=r"mask must be a list \[query_mask, value_mask\].*got ndarray"):
        layer([q, v, k], mask=np.ones((2, 5), bool))
    with pytest.raises(ValueError, match=r"value_mask must have shape \(batch, steps\) = \(2, 5\).*got shape \(2, 3\)"):
        layer([q, v, k], mask=[None, np.ones((2, 3), bool)])
    with pytest.raises(ValueError, match=r"query_mask must have shape \(batch, steps\) = \(2, 3\)"):
        layers.AdditiveAttention()([q, k], mask=[np.ones((3,), bool), None])
    with pytest.raises(ValueError, match="score_mode must be 'dot' or 'concat', got 'add'"):
        layers.Attention(score_mode="add")
    with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\)"):
        layers.AdditiveAttention(dropout=-0.1)
