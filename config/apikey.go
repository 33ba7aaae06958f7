package config

import (
	"fmt"
	"os"
	"strings"
)

// APIKey reads the API key: from the file keyFile when given (or named by
// BILLSNAP_API_KEY_FILE), else from BILLSNAP_API_KEY. warn is told when the
// file can be read by other users. The error names where the key was
// looked for (--api-key-file or BILLSNAP_API_KEY_FILE), never the key.
func APIKey(getenv func(string) string, keyFile string, warn func(string)) (string, error) {
	source := "--api-key-file"
	if keyFile == "" {
		keyFile, source = getenv(EnvAPIKeyFile), EnvAPIKeyFile
	}
	if keyFile == "" {
		if k := strings.TrimSpace(getenv(EnvAPIKey)); k != "" {
			return k, nil
		}
		return "", fmt.Errorf("no API key: set %s or use --api-key-file", EnvAPIKey)
	}
	st, err := os.Stat(keyFile)
	if err != nil {
		return "", fmt.Errorf("%s: %w", source, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		warn(fmt.Sprintf("the API key file %s can be read by other users (mode %04o); chmod 600 it", keyFile, st.Mode().Perm()))
	}
	b, err := os.ReadFile(keyFile)
	if err != nil {
		return "", fmt.Errorf("%s: %w", source, err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return "", fmt.Errorf("%s: %s is empty", source, keyFile)
	}
	return k, nil
}
