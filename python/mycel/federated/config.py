"""The federated server's configuration: MindSpore Federated's YAML layout and key names.

``load_config(path_or_dict)`` checks every key and value and returns the flat dict the C++
server takes. The accepted layout (times in milliseconds, as in MindSpore Federated)::

    fl_name: lenet                    # a name for logs
    fl_iteration_num: 20              # rounds to run
    server_mode: FEDERATED_LEARNING   # the only mode so far
    enable_ssl: false                 # true: HTTPS, with the ssl: section
    ssl:                              # only with enable_ssl: true (PEM files)
      server_cert_path: server.crt    # the certificate (chain) clients verify
      server_key_path: server.key     # its private key (mycel's key; MindSpore uses p12)
    http_server_address: 127.0.0.1:6666   # port 0: any free port
    checkpoint_dir: ./fl_ckpt         # the round checkpoints (resumed from on restart)
    feature_map: ./init.ckpt          # the initial model (float32 parameters)
    round:
      start_fl_job_threshold: 10      # clients admitted per round
      start_fl_job_time_window: 30000 # the admission window
      update_model_ratio: 1.0         # the share of admitted clients whose upload closes it
      update_model_time_window: 30000 # the upload window, from admission's close
    encrypt:
      encrypt_type: NOT_ENCRYPT       # or PW_ENCRYPT (secure aggregation), DP_ENCRYPT
      pw_encrypt:                     # only with PW_ENCRYPT
        reconstruct_secrets_threshold: 3  # t of Shamir's t-of-n (>= 2, <= the join threshold)
        share_secrets_ratio: 1.0      # the share of keyed clients that must share secrets
        cipher_time_window: 30000     # each key, share and reconstruction phase's window
      dp_encrypt:                     # only with DP_ENCRYPT (privacy.py: local DP)
        dp_eps: 50.0                  # the (eps, delta) budget of one round
        dp_delta: 0.01                # (MindSpore Federated suggests 1 / the clients)
        dp_norm_clip: 1.0             # the L2 bound of a client's update
    compression:                      # (not with PW_ENCRYPT)
      upload_compress_type: NO_COMPRESS   # or DIFF_SPARSE_QUANT: a random share of the
      upload_sparse_rate: 0.4             #   update's difference, 8-bit (compress.h)
      download_compress_type: NO_COMPRESS # or QUANT: the model as 8-bit codes
    aggregation:                      # mycel's (MindSpore Federated has no server optimizer)
      server_learning_rate: 1.0       # FedAvgM (Hsu et al. 2019; Flower's key names): the
      server_momentum: 0.0            #   average a moves the model w by v = m * v + (a - w),
                                      #   w += lr * v; lr 1, momentum 0 (default) is FedAvg
    summary:
      metrics_file: ./metrics.json    # a JSON line per round (MindSpore's metrics key names)
    max_body_bytes: 268435456         # mycel's: the largest request body accepted

A key that is unknown, or a value of the wrong type or out of range, is a ValueError (or a
TypeError for the type) naming the key (the server checks the values' relations, such as the
secret-sharing threshold against the join threshold). Options of features mycel does not have
yet (summaries but metrics_file) are refused rather than
ignored (of summary:, only metrics_file is built). Clients of a TLS server pass the CA that
signed its certificate (``FederatedClient(..., ca_cert_path=...)``).
"""
import os

_ROUND = {"start_fl_job_threshold": "int", "start_fl_job_time_window": "int",
          "update_model_ratio": "ratio", "update_model_time_window": "int"}
_TOP = {"fl_name": "str", "fl_iteration_num": "int", "server_mode": "str", "enable_ssl": "bool",
        "http_server_address": "str", "checkpoint_dir": "str", "feature_map": "str",
        "max_body_bytes": "int", "max_clients": "int"}
_SECTIONS = ("round", "encrypt", "compression", "aggregation", "summary", "ssl")
_AGGREGATION = {"server_learning_rate": "number", "server_momentum": "momentum"}
_SSL = {"server_cert_path", "server_key_path"}
_ENCRYPT = {"encrypt_type", "pw_encrypt", "dp_encrypt", "signds", "stable_pw_encrypt"}
_PW = {"reconstruct_secrets_threshold": "int", "share_secrets_ratio": "ratio",
       "cipher_time_window": "int"}
_DP = {"dp_eps": "number", "dp_delta": "number", "dp_norm_clip": "number"}
_COMPRESSION = {"upload_compress_type", "upload_sparse_rate", "download_compress_type"}


def _fail(key, why, kind=ValueError):
    raise kind(f"federated config: '{key}' {why}.")


def _value(key, kind, v):
    if kind == "str":
        if not isinstance(v, str) or not v:
            _fail(key, f"must be a non-empty string, got {v!r}", TypeError)
    elif kind == "bool":
        if not isinstance(v, bool):
            _fail(key, f"must be true or false, got {v!r}", TypeError)
    elif kind == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            _fail(key, f"must be an integer, got {v!r}", TypeError)
        if v <= 0:
            _fail(key, f"must be positive, got {v}")
    elif kind == "number":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            _fail(key, f"must be a number, got {v!r}", TypeError)
        if not 0 < v < float("inf"):
            _fail(key, f"must be positive, got {v}")
    elif kind == "momentum":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            _fail(key, f"must be a number, got {v!r}", TypeError)
        if not 0 <= v < 1:
            _fail(key, f"must be in [0, 1), got {v}")
    elif kind == "ratio":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            _fail(key, f"must be a number, got {v!r}", TypeError)
        if not 0 < v <= 1:
            _fail(key, f"must be in (0, 1], got {v}")
    return v


def _address(text):
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        _fail("http_server_address", f"must be 'HOST:PORT' (port 0 to 65535), got {text!r}")
    return host, int(port)


def _section(name, body, allowed):
    if body is None:
        return {}
    if not isinstance(body, dict):
        _fail(name, f"must be a mapping, got {body!r}", TypeError)
    for k in body:
        if k not in allowed:
            _fail(f"{name}.{k}", "is not a key of this section"
                  f" (known: {', '.join(sorted(allowed))})" if allowed else "is not supported")
    return body


def load_config(config):
    """The checked server configuration of a YAML file path or of a dict of the same layout,
    as the flat dict of the C++ server (times in ms)."""
    if isinstance(config, (str, os.PathLike)):
        import yaml
        with open(config, encoding="utf-8") as f:
            config = yaml.safe_load(f)
    if not isinstance(config, dict):
        raise TypeError(f"federated config: expected a mapping, got {type(config).__name__}.")
    out = {}
    for k, v in config.items():
        if k in _SECTIONS:
            continue
        if k not in _TOP:
            _fail(k, "is not a federated config key (known: "
                  f"{', '.join(sorted(set(_TOP) | set(_SECTIONS)))})")
        out[k] = _value(k, _TOP[k], v)
    for k in ("fl_iteration_num", "checkpoint_dir", "http_server_address"):
        if k not in out:
            _fail(k, "is required")
    if out.pop("server_mode", "FEDERATED_LEARNING") != "FEDERATED_LEARNING":
        _fail("server_mode", "must be FEDERATED_LEARNING (hybrid training is not built yet)")
    ssl = _section("ssl", config.get("ssl"), _SSL)
    if out.pop("enable_ssl", False):
        for k in sorted(_SSL):
            if k not in ssl:
                _fail(f"ssl.{k}", "is required when enable_ssl is true")
            path = _value(f"ssl.{k}", "str", ssl[k])
            if not os.path.isfile(path):
                _fail(f"ssl.{k}", f"is not a file: {path!r}")
            out[k] = path
    elif ssl:
        _fail("ssl", "is given but enable_ssl is not true")
    out["host"], out["port"] = _address(out.pop("http_server_address"))
    rnd = _section("round", config.get("round"), set(_ROUND))
    for k, v in rnd.items():
        out[k] = _value(f"round.{k}", _ROUND[k], v)
    enc = _section("encrypt", config.get("encrypt"), _ENCRYPT)
    out["encrypt_type"] = enc.get("encrypt_type", "NOT_ENCRYPT")
    if out["encrypt_type"] not in ("NOT_ENCRYPT", "PW_ENCRYPT", "DP_ENCRYPT"):
        _fail("encrypt.encrypt_type", f"is {out['encrypt_type']!r}: NOT_ENCRYPT, PW_ENCRYPT "
              "and DP_ENCRYPT are built")
    for k in ("signds", "stable_pw_encrypt"):
        if k in enc:
            _fail(f"encrypt.{k}", "is not supported")
    pw = _section("encrypt.pw_encrypt", enc.get("pw_encrypt"), set(_PW))
    if pw and out["encrypt_type"] != "PW_ENCRYPT":
        _fail("encrypt.pw_encrypt", "is given but encrypt_type is not PW_ENCRYPT")
    for k, v in pw.items():
        out[k] = _value(f"encrypt.pw_encrypt.{k}", _PW[k], v)
    dp = _section("encrypt.dp_encrypt", enc.get("dp_encrypt"), set(_DP))
    if dp and out["encrypt_type"] != "DP_ENCRYPT":
        _fail("encrypt.dp_encrypt", "is given but encrypt_type is not DP_ENCRYPT")
    if out["encrypt_type"] == "DP_ENCRYPT":
        from mycel.federated.privacy import dp_epsilons, dp_noise_multiplier
        dp = {"dp_eps": 50.0, "dp_delta": 0.01, "dp_norm_clip": 1.0, **dp}
        for k, v in dp.items():
            _value(f"encrypt.dp_encrypt.{k}", _DP[k], v)
        out["dp_norm_clip"] = float(dp["dp_norm_clip"])
        out["dp_noise_multiplier"] = dp_noise_multiplier(dp["dp_eps"], dp["dp_delta"])
        out["dp_epsilons"] = dp_epsilons(out["dp_noise_multiplier"], dp["dp_delta"],
                                         out["fl_iteration_num"])
    comp = _section("compression", config.get("compression"), _COMPRESSION)
    for k, kinds in (("upload_compress_type", ("NO_COMPRESS", "DIFF_SPARSE_QUANT")),
                     ("download_compress_type", ("NO_COMPRESS", "QUANT"))):
        out[k] = comp.get(k, "NO_COMPRESS")
        if out[k] not in kinds:
            _fail(f"compression.{k}", f"must be one of {', '.join(kinds)}, got {out[k]!r}")
    if "upload_sparse_rate" in comp:
        out["upload_sparse_rate"] = _value("compression.upload_sparse_rate", "ratio",
                                           comp["upload_sparse_rate"])
    agg = _section("aggregation", config.get("aggregation"), set(_AGGREGATION))
    for k, v in agg.items():
        out[k] = float(_value(f"aggregation.{k}", _AGGREGATION[k], v))
    summary = _section("summary", config.get("summary"), {"metrics_file"})
    if "metrics_file" in summary:
        out["metrics_file"] = _value("summary.metrics_file", "str", summary["metrics_file"])
    return out
