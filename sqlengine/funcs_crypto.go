package sqlengine

import (
	"bytes"
	"crypto/cipher"
	"crypto/des"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/stactor/stactor/row"
)

// DES_ENCRYPT(password, data) and DES_DECRYPT(password, data): the
// functions SeaTunnel's transform module ships as UDFs (DesEncrypt,
// DesDecrypt over DESUtil). DES in CBC mode with PKCS5 padding, the key
// from the first 8 bytes of the password's UTF-8, the fixed IV
// "12345678", and Base64 text for the cipher text. As there, a password
// shorter than 8 characters fails the row, and data that cannot be
// decrypted (not Base64, a wrong length, bad padding) comes back as it
// was.

func init() {
	register(&fnSpec{2, 2, buildDES(true)}, "DES_ENCRYPT")
	register(&fnSpec{2, 2, buildDES(false)}, "DES_DECRYPT")
}

// desIV is DESUtil's IV_PARAMETER.
var desIV = []byte("12345678")

func buildDES(encrypt bool) func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
	return func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		if err := c.checkArgs(call, args, aString, aString); err != nil {
			return nil, err
		}
		return c.scalar(call, args, row.String, func(a []val, o *val) error {
			password, data := a[0].s, a[1].s
			// Java counts the password in UTF-16 units.
			if utf16Len(password) < 8 {
				return fmt.Errorf("the password must be at least 8 characters")
			}
			block, err := des.NewCipher([]byte(password)[:8])
			if err != nil {
				return err
			}
			if encrypt {
				o.s = desEncrypt(block, data)
			} else {
				o.s = desDecrypt(block, data)
			}
			return nil
		}, fnOpts{fails: true}), nil
	}
}

func desEncrypt(block cipher.Block, data string) string {
	n := des.BlockSize - len(data)%des.BlockSize
	buf := make([]byte, len(data)+n)
	copy(buf, data)
	copy(buf[len(data):], bytes.Repeat([]byte{byte(n)}, n))
	cipher.NewCBCEncrypter(block, desIV).CryptBlocks(buf, buf)
	return base64.StdEncoding.EncodeToString(buf)
}

// desDecrypt is DESUtil.decrypt: data itself when it does not decrypt.
func desDecrypt(block cipher.Block, data string) string {
	buf, ok := javaBase64(data)
	if !ok || len(buf)%des.BlockSize != 0 {
		return data
	}
	if len(buf) == 0 {
		return ""
	}
	cipher.NewCBCDecrypter(block, desIV).CryptBlocks(buf, buf)
	n := int(buf[len(buf)-1])
	if n < 1 || n > des.BlockSize {
		return data
	}
	for _, b := range buf[len(buf)-n:] {
		if int(b) != n {
			return data
		}
	}
	return javaUTF8(buf[:len(buf)-n])
}

// javaBase64 decodes as Java's Base64.getDecoder(): the padding may be
// left out, but when present it must be complete; no line breaks.
func javaBase64(s string) ([]byte, bool) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, false
	}
	enc := base64.RawStdEncoding
	if strings.HasSuffix(s, "=") {
		enc = base64.StdEncoding
	}
	b, err := enc.DecodeString(s)
	return b, err == nil
}

// javaUTF8 is new String(b, UTF_8): malformed bytes become U+FFFD.
func javaUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var s strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		s.WriteRune(r) // utf8.RuneError for a malformed byte
		b = b[size:]
	}
	return s.String()
}
